// bench_gpu_train: epoch time of a GCN (2 and 16 layers) and a 16-layer GCNII (forward,
// loss, backward, Adam) on the CUDA backend against the CPU backend, in one run, on an SBM
// synthetic graph (the built-in dataset): the one engine in local mode, which --device
// cuda runs; the CPU side is the same code on the CPU kernels, with every core OpenMP
// gives it. Prints CSV.
//   bench_gpu_train [vertices (default 2^21)] [epochs timed (default 3)] [hidden (default 64)]
#include <cstdio>
#include <numeric>
#include <string>

#include "strata/core/device.h"
#include "strata/core/timer.h"
#include "strata/datasets/dataset.h"
#include "strata/kernels/backend.h"
#include "strata/layers/model.h"
#include "strata/training/modes.h"

using namespace strata;

namespace {

// Seconds per training step (forward, loss, backward, Adam; the engine synchronizes the
// device before it stops the clock), the mean of `epochs` after one untimed warm-up epoch.
double epoch_seconds(const kernels::Backend& b, const Dataset& d, ModelKind kind, int layers,
                     int hidden, int epochs) {
  TrainConfig config;
  config.model = kind;
  config.layers = layers;
  config.hidden = hidden;
  config.epochs = epochs + 1;
  config.seed = 1;
  const TrainResult r = train_one_process(d, config, nullptr, {b, nullptr});
  double total = 0;
  for (std::size_t e = 1; e < r.epochs.size(); ++e) total += r.epochs[e].epoch_s;
  return total / epochs;
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
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  std::printf("# %s; SBM %d vertices, %lld edges, %lld features, hidden %d\n",
              gpu::describe(0).c_str(), d.adjacency.rows, static_cast<long long>(d.adjacency.nnz()),
              static_cast<long long>(d.features.cols()), hidden);
  std::printf("model,layers,cpu_epoch_s,gpu_epoch_s,gpu_over_cpu\n");
  for (const auto& [kind, layers] : {std::pair{ModelKind::kGcn, 2}, std::pair{ModelKind::kGcn, 16},
                                     std::pair{ModelKind::kGcnii, 16}}) {
    const double c = epoch_seconds(*cpu, d, kind, layers, hidden, epochs);
    const double g = epoch_seconds(*cuda, d, kind, layers, hidden, epochs);
    std::printf("%s,%d,%.4f,%.4f,%.4f\n", model_kind_name(kind), layers, c, g, g / c);
    std::fflush(stdout);
  }
  return 0;
}
