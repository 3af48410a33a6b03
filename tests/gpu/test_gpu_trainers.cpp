// The trainers of every mode on the CUDA backend against the CPU backend, end to end:
// ranks are threads of this process, each with its own CUDA stream on GPU 0, moving rows
// and gradients through device staging (NCCL wants one GPU per rank). Built where METIS and
// Boost's headers are found (scripts/gpu-check.sh brings them); skips with a message when
// no CUDA device answers.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpu_test_util.h"
#include "strata/comm/device_staging_communicator.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/layers/model.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard.h"
#include "strata/training/modes.h"

namespace strata {
namespace {

using Run = std::function<TrainResult(Communicator&, const Device&)>;

// Every rank's result of run on the CUDA backend (device staging between the ranks) or on
// the CPU backend (the host communicators themselves).
std::vector<TrainResult> on_backend(bool on_gpu, int ranks, const Run& run) {
  std::vector<TrainResult> results(static_cast<std::size_t>(ranks));
  run_in_process(ranks, [&](Communicator& host) {
    if (!on_gpu) {
      const auto cpu = kernels::make_cpu_backend();
      results[host.rank()] = run(host, {*cpu, nullptr});
      return;
    }
    gpu::Context context(0);
    const auto backend = kernels::make_cuda_backend(context);
    const DataCommunicator staged = [&context](Communicator& c) -> std::unique_ptr<Communicator> {
      if (c.size() == 1) return nullptr;
      return std::make_unique<DeviceStagingCommunicator>(c.split(0, c.rank()), context);
    };
    results[host.rank()] = run(host, {*backend, staged});
  });
  return results;
}

void check_close(const TrainResult& gpu, const TrainResult& cpu) {
  REQUIRE(gpu.epochs.size() == cpu.epochs.size());
  for (std::size_t e = 0; e < gpu.epochs.size(); ++e) {
    INFO("epoch " << e);
    CHECK(gpu.epochs[e].loss == Approx(cpu.epochs[e].loss).epsilon(1e-3));
    CHECK(gpu.epochs[e].val_acc == Approx(cpu.epochs[e].val_acc).margin(0.02));
    for (const auto& [name, bytes] : cpu.epochs[e].comm_bytes) {
      INFO(name);
      // Gradient sums are float on CUDA, double on the CPU: half the all-reduce's bytes.
      CHECK(gpu.epochs[e].comm_bytes.at(name) == (name == "allreduce" ? bytes / 2 : bytes));
    }
  }
  REQUIRE(!cpu.weights.empty());
  REQUIRE(gpu.weights.size() == cpu.weights.size());
  for (std::size_t t = 0; t < cpu.weights.size(); ++t) {
    REQUIRE(!cpu.weights[t].empty());
    REQUIRE(gpu.weights[t].size() == cpu.weights[t].size());
  }
  for (std::size_t t = 0; t < cpu.weights.size(); ++t)
    for (std::size_t i = 0; i < cpu.weights[t].size(); ++i)
      REQUIRE(gpu.weights[t][i] == Approx(cpu.weights[t][i]).margin(1e-3));
}

void compare(int ranks, const Run& run) {
  const std::vector<TrainResult> gpu = on_backend(true, ranks, run);
  const std::vector<TrainResult> cpu = on_backend(false, ranks, run);
  for (int r = 0; r < ranks; ++r) check_close(gpu[r], cpu[r]);
}

Dataset small_dataset(bool sparse) {
  LoadOptions options;
  options.nodes = 1500;
  options.avg_degree = 8;
  options.features = sparse ? 96 : 24;
  options.classes = 5;
  options.seed = 3;
  Dataset d = load_dataset("synthetic", options);
  if (sparse) d.features = FeatureMatrix(to_csr(d.features.to_dense()));
  return d;
}

TrainConfig small_config(ModelKind model) {
  TrainConfig c;
  c.model = model;
  c.learn_eps = model == ModelKind::kGin;
  if (model == ModelKind::kGat) {
    c.heads = 2;
    c.attention_dropout = 0.3f;
  }
  c.layers = 4;
  c.hidden = 32;
  c.epochs = 4;
  c.seed = 5;
  return c;
}

TEST_CASE("local and graph mode train on the CUDA backend as on the CPU backend",
          "[gpu][trainers]") {
  if (test::no_device()) return;
  for (ModelKind model :
       {ModelKind::kGcn, ModelKind::kGcnii, ModelKind::kSage, ModelKind::kGin, ModelKind::kGat})
    for (bool sparse : {false, true})
      for (int parts : {1, 2}) {
        INFO(model_kind_name(model)
             << (sparse ? ", sparse" : ", dense") << ", " << parts << " parts");
        const Dataset d = small_dataset(sparse);
        const auto part_of = parts == 1
                                 ? std::vector<std::int32_t>(d.adjacency.rows, 0)
                                 : partition_graph(d.adjacency, {PartitionMethod::kMetis, 2});
        compare(parts, [&](Communicator& comm, const Device& device) {
          if (parts == 1) return train_one_process(d, small_config(model), nullptr, device);
          const Shard shard = make_shard(d, part_of, parts, comm.rank());
          return train_graph_parallel(comm, shard, small_config(model), nullptr, device);
        });
      }
}

TEST_CASE("pipeline and hybrid mode train on the CUDA backend as on the CPU backend",
          "[gpu][trainers]") {
  if (test::no_device()) return;
  const Dataset d = small_dataset(true);
  const PartitionOptions two_parts{.method = PartitionMethod::kMetis, .parts = 2};
  const auto part_of = hybrid_partition(d, two_parts);
  for (ModelKind model :
       {ModelKind::kGcn, ModelKind::kGcnii, ModelKind::kSage, ModelKind::kGin, ModelKind::kGat}) {
    INFO(model_kind_name(model));
    PipelineOptions options;
    options.chunks = 3;
    options.stale_grad = StaleGrad::kDelay;
    compare(2, [&](Communicator& comm, const Device& device) {
      return train_pipeline(comm, d, small_config(model), options, nullptr, device);
    });
    compare(4, [&](Communicator& comm, const Device& device) {
      return train_hybrid(comm, d, small_config(model), options, two_parts, part_of, nullptr,
                          device);
    });
  }
}

// The wire formats encode alike on both devices (test_gpu_kernels.cpp): compressed runs
// stay as close to the CPU backend's as float32 runs do, and count the same row bytes.
TEST_CASE("compressed rows on the CUDA backend train as on the CPU backend", "[gpu][trainers]") {
  if (test::no_device()) return;
  const Dataset d = small_dataset(true);
  const PartitionOptions two_parts{.method = PartitionMethod::kMetis, .parts = 2};
  const auto part_of = hybrid_partition(d, two_parts);
  PipelineOptions options;
  options.chunks = 3;
  for (const RowCodec codec : {RowCodec::kBf16, RowCodec::kInt8}) {
    INFO(row_codec_name(codec));
    TrainConfig config = small_config(ModelKind::kGcnii);
    config.compress = {codec, codec};
    compare(2, [&](Communicator& comm, const Device& device) {
      const Shard shard = make_shard(d, part_of, 2, comm.rank());
      return train_graph_parallel(comm, shard, config, nullptr, device);
    });
    compare(2, [&](Communicator& comm, const Device& device) {
      return train_pipeline(comm, d, config, options, nullptr, device);
    });
    compare(4, [&](Communicator& comm, const Device& device) {
      return train_hybrid(comm, d, config, options, two_parts, part_of, nullptr, device);
    });
  }
}

}  // namespace
}  // namespace strata
