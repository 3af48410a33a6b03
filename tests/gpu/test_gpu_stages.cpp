// The engine's stages (what every mode runs) on the CUDA backend against the CPU backend:
// a whole model as one stage over one block of every row (local and graph mode), and two
// stages as threads of this process with the chunks flowing between them through the
// schedule's passes (device staging on the GPU, the in-process communicator on the CPU),
// three epochs that read history, delay stale gradients and step Adam; and the halo
// exchange of graph and hybrid mode. Skips with a message when no CUDA device answers.
#include <catch2/catch.hpp>
#include <numeric>
#include <optional>

#include "gpu_test_util.h"
#include "strata/comm/device_staging_communicator.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/core/random.h"
#include "strata/layers/adam.h"
#include "strata/layers/model.h"
#include "strata/training/block_rows.h"
#include "strata/training/halo_exchange.h"
#include "strata/training/stage_passes.h"

namespace strata {
namespace {

constexpr int kClasses = 5, kLayers = 4;

struct Problem {
  RowLayout layout;
  Matrix features;  // layout order
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> mask;
};

Problem make_problem(std::int64_t features, int chunks) {
  constexpr GlobalId n = 301;
  Rng rng(17);
  std::vector<Edge> edges;
  for (GlobalId v = 0; v < n; ++v)
    for (int e = 0; e < 4; ++e) edges.push_back({v, static_cast<GlobalId>(rng.next() % n)});
  const Csr graph = build_csr(n, edges, {});
  std::vector<std::int32_t> chunk_of(n);
  for (GlobalId v = 0; v < n; ++v) chunk_of[v] = static_cast<std::int32_t>(v * chunks / n);
  Problem p{whole_graph_layout(graph, chunk_of, chunks, Propagation::kGcn),
            test::random_matrix(n, features, 5),
            {},
            {}};
  for (GlobalId v : p.layout.order) {
    p.labels.push_back(static_cast<std::int32_t>(v % kClasses));
    p.mask.push_back(v % 3 == 0 ? 1 : 0);
  }
  return p;
}

// Stage `pipe.rank()` of `bounds` on one backend, three epochs; its final weights and
// last loss.
std::vector<float> train_stage(const kernels::Backend& b, Communicator& pipe, ModelKind kind,
                               const Problem& p, const std::vector<int>& bounds, RowCodec storage) {
  const int s = pipe.rank();
  ModelConfig model{static_cast<int>(p.features.cols()), 24, kClasses, kLayers, 0.5f, true, 3};
  model.kind = kind;
  model.learn_eps = kind == ModelKind::kGin;
  if (kind == ModelKind::kGat) {
    model.heads = 2;
    model.output_heads = 2;
    model.attention_dropout = 0.3f;
  }
  RowLayout layout = p.layout;
  BlockRows rows(layout, b, nullptr, true, model_type(kind).reads_entries());
  std::optional<Features> x;
  if (s == 0) x.emplace(b, p.features.view());
  const auto stage =
      make_stage({b, model, rows, x ? &*x : nullptr, StaleGrad::kDelay, 1.0f, false, storage},
                 bounds[s], bounds[s + 1]);
  Adam adam(b, stage->parameters().count(), {});
  const kernels::Buffer labels = kernels::to_backend<std::int32_t>(b, p.labels);
  const kernels::Buffer mask = kernels::to_backend<std::uint8_t>(b, p.mask);
  const auto loss_of = [&](const Block& c) {
    return b.masked_log_softmax_nll(stage->output_rows(c), labels.as<std::int32_t>() + c.begin,
                                    mask.as<std::uint8_t>() + c.begin, 100.0,
                                    stage->output_grad_rows(c));
  };
  std::vector<int> order(p.layout.chunks.size());
  std::iota(order.begin(), order.end(), 0);
  StageWire wire(b, {});
  const StagePasses passes{pipe, p.layout.chunk_count(), wire};
  double loss = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    stage->parameters().zero_grad();
    stage->begin_epoch(epoch, true);
    loss = forward_pass(passes, *stage, p.layout.chunks, order, true, loss_of);
    backward_pass(passes, *stage, p.layout.chunks, order);
    stage->parameters().finish_gradients();
    adam.step(stage->parameters());
  }
  std::vector<float> out;
  for (const auto& t : stage->parameters().values_on_host())
    out.insert(out.end(), t.begin(), t.end());
  out.push_back(static_cast<float>(loss));
  return out;
}

std::vector<float> train_stages(bool on_gpu, ModelKind kind, const Problem& p,
                                const std::vector<int>& bounds, RowCodec storage) {
  const int stages = static_cast<int>(bounds.size()) - 1;
  std::vector<std::vector<float>> results(static_cast<std::size_t>(stages));
  run_in_process(stages, [&](Communicator& host) {
    if (!on_gpu) {
      results[host.rank()] =
          train_stage(*kernels::make_cpu_backend(), host, kind, p, bounds, storage);
      return;
    }
    gpu::Context context(0);
    const auto backend = kernels::make_cuda_backend(context);
    DeviceStagingCommunicator pipe(host.split(0, host.rank()), context);
    results[host.rank()] = train_stage(*backend, pipe, kind, p, bounds, storage);
  });
  std::vector<float> all;
  for (const auto& r : results) all.insert(all.end(), r.begin(), r.end());
  return all;
}

// With bf16 storage (GCN, GraphSAGE and GIN), an aggregation whose float sums differ in the
// last bit between backends may round to neighbouring bf16 values: a looser bound. Chunked,
// the stages keep their history in bf16 too (Â reads it through the CUDA bf16 SpMM).
void compare_backends(int chunks, const std::vector<int>& bounds,
                      RowCodec storage = RowCodec::kFloat32) {
  const double bound = storage == RowCodec::kFloat32 ? 1e-4 : 1e-2;
  for (ModelKind kind :
       {ModelKind::kGcn, ModelKind::kGcnii, ModelKind::kSage, ModelKind::kGin, ModelKind::kGat})
    for (std::int64_t features : {12, 40}) {  // aggregate-first and transform-first layer 0
      const bool conv = kind != ModelKind::kGcnii && kind != ModelKind::kGat;
      if (!conv && storage != RowCodec::kFloat32) continue;
      INFO(model_kind_name(kind) << ", " << features << " features");
      const Problem p = make_problem(features, chunks);
      const std::vector<float> gpu = train_stages(true, kind, p, bounds, storage);
      const std::vector<float> cpu = train_stages(false, kind, p, bounds, storage);
      REQUIRE(gpu.size() == cpu.size());
      for (std::size_t i = 0; i < gpu.size(); ++i)
        REQUIRE(gpu[i] == Approx(cpu[i]).epsilon(bound).margin(bound));
    }
}

TEST_CASE("a whole model over one block trains on the CUDA backend as on the CPU backend",
          "[gpu][backend]") {
  if (test::no_device()) return;
  compare_backends(1, {0, kLayers});
}

TEST_CASE("two pipeline stages on the CUDA backend train as on the CPU backend", "[gpu][backend]") {
  if (test::no_device()) return;
  compare_backends(3, {0, 2, kLayers});
}

TEST_CASE("aggregations stored in bf16 on the CUDA backend train as on the CPU backend",
          "[gpu][backend]") {
  if (test::no_device()) return;
  compare_backends(1, {0, kLayers}, RowCodec::kBf16);
  compare_backends(3, {0, 2, kLayers}, RowCodec::kBf16);
}

// Rank q of `ranks` owns rows [0, 40) and holds a halo of 7 rows from each other rank:
// peer q' sends its rows 3, 8, 13, ... to q. The halo rows forward, then the whole
// buffer's rows (halo included) as gradients backward; the buffer after both, flattened.
std::vector<float> halo_round_trip(const kernels::Backend& b, Communicator& data, int ranks) {
  constexpr LocalId kOwned = 40, kPerPeer = 7;
  HaloPlan plan;
  plan.send.resize(static_cast<std::size_t>(ranks));
  plan.recv.resize(static_cast<std::size_t>(ranks));
  LocalId next_halo = kOwned;
  for (int q = 0; q < ranks; ++q) {
    if (q == data.rank()) continue;
    for (LocalId i = 0; i < kPerPeer; ++i) {
      plan.send[q].push_back(static_cast<LocalId>((3 + 5 * i + data.rank()) % kOwned));
      plan.recv[q].push_back(next_halo++);
    }
  }
  const Matrix host =
      test::random_matrix(next_halo, 13, 9 + static_cast<std::uint64_t>(data.rank()));
  kernels::Tensor rows = kernels::to_backend(b, host.view());
  HaloExchange exchange(plan, data, b);
  exchange.forward(rows.view(), CommCategory::kHaloForward);
  exchange.backward(rows.view(), CommCategory::kHaloBackward);
  return kernels::to_host(b, rows).storage();
}

TEST_CASE("the halo exchange on the CUDA backend moves and adds rows as on the CPU backend",
          "[gpu][backend]") {
  if (test::no_device()) return;
  for (int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    std::vector<std::vector<float>> on_cpu(static_cast<std::size_t>(ranks)), on_gpu = on_cpu;
    run_in_process(ranks, [&](Communicator& host) {
      on_cpu[host.rank()] = halo_round_trip(*kernels::make_cpu_backend(), host, ranks);
      gpu::Context context(0);
      const auto backend = kernels::make_cuda_backend(context);
      DeviceStagingCommunicator data(host.split(0, host.rank()), context);
      on_gpu[host.rank()] = halo_round_trip(*backend, data, ranks);
    });
    for (int r = 0; r < ranks; ++r) {
      REQUIRE(on_gpu[r].size() == on_cpu[r].size());
      for (std::size_t i = 0; i < on_gpu[r].size(); ++i)
        REQUIRE(on_gpu[r][i] == Approx(on_cpu[r][i]));
    }
  }
}

}  // namespace
}  // namespace strata
