// bench_gpu_train: epoch time of a GCN (2 and 16 layers) and a 16-layer GCNII (forward,
// loss, backward, Adam) on the CUDA backend against the CPU backend, in one run, on an SBM
// synthetic graph (the built-in dataset). These are the backend models --device cuda
// trains; the CPU side is the same code on the CPU kernels, with every core OpenMP gives
// it. Prints CSV.
//   bench_gpu_train [vertices (default 2^21)] [epochs timed (default 3)] [hidden (default 64)]
#include <cstdio>
#include <numeric>
#include <string>

#include "strata/core/device.h"
#include "strata/core/timer.h"
#include "strata/datasets/dataset.h"
#include "strata/kernels/backend.h"
#include "strata/layers/backend_model.h"

using namespace strata;

namespace {

struct Inputs {
  BackendFeatures features;
  kernels::Buffer ids, labels, mask;
};

Inputs upload(const kernels::Backend& b, const Dataset& d) {
  std::vector<GlobalId> ids(static_cast<std::size_t>(d.adjacency.rows));
  std::iota(ids.begin(), ids.end(), GlobalId{0});
  return {BackendFeatures(b, d.features.dense().view()), kernels::to_backend<GlobalId>(b, ids),
          kernels::to_backend<std::int32_t>(b, d.labels),
          kernels::to_backend<std::uint8_t>(b, d.train_mask)};
}

// Seconds per epoch, the mean of `epochs` after one untimed warm-up epoch.
double epoch_seconds(const kernels::Backend& b, const Dataset& d, const Csr& a_hat, ModelKind kind,
                     int layers, int hidden, int epochs) {
  ModelConfig config{
      static_cast<int>(d.features.cols()), hidden, d.num_classes, layers, 0.5f, true, 1, kind};
  const std::unique_ptr<BackendModel> built = make_backend_model(config, b);
  BackendModel& model = *built;
  BackendLocalAggregator aggregator(a_hat, b);
  BackendAdam adam(b, model.parameters().count(), {});
  Inputs in = upload(b, d);
  kernels::Tensor grad(b, d.adjacency.rows, d.num_classes);
  double train = 0;
  for (const std::uint8_t m : d.train_mask) train += m;
  Timer timer;
  for (int e = 0; e <= epochs; ++e) {
    if (e == 1) {
      b.synchronize();
      timer.reset();
    }
    model.parameters().zero_grad();
    const kernels::Tensor& logits =
        model.forward(aggregator, in.features, in.ids.as<GlobalId>(), true, e);
    b.masked_log_softmax_nll(logits.view(), in.labels.as<std::int32_t>(),
                             in.mask.as<std::uint8_t>(), train, grad.view());
    model.backward(aggregator, grad.view());
    adam.step(model.parameters());
  }
  b.synchronize();
  return timer.seconds() / epochs;
}

}  // namespace

int main(int argc, char** argv) {
  if (!gpu::available()) {
    std::fprintf(stderr, "bench_gpu_train: no CUDA device answers\n");
    return 1;
  }
  LoadOptions options;
  options.nodes = argc > 1 ? std::stoll(argv[1]) : std::int64_t{1} << 21;
  const int epochs = argc > 2 ? std::stoi(argv[2]) : 3;
  const int hidden = argc > 3 ? std::stoi(argv[3]) : 64;
  const Dataset d = make_sbm(options);
  const Csr a_hat = gcn_normalize(d.adjacency, degrees_plus_one(d.adjacency));
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  std::printf("# %s; SBM %d vertices, %lld nonzeros of A-hat, %lld features, hidden %d\n",
              gpu::describe(0).c_str(), a_hat.rows, static_cast<long long>(a_hat.nnz()),
              static_cast<long long>(d.features.cols()), hidden);
  std::printf("model,layers,cpu_epoch_s,gpu_epoch_s,gpu_over_cpu\n");
  for (const auto& [kind, layers] : {std::pair{ModelKind::kGcn, 2}, std::pair{ModelKind::kGcn, 16},
                                     std::pair{ModelKind::kGcnii, 16}}) {
    const double c = epoch_seconds(*cpu, d, a_hat, kind, layers, hidden, epochs);
    const double g = epoch_seconds(*cuda, d, a_hat, kind, layers, hidden, epochs);
    std::printf("%s,%d,%.4f,%.4f,%.4f\n", model_kind_name(kind), layers, c, g, g / c);
    std::fflush(stdout);
  }
  return 0;
}
