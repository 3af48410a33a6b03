// cuSPARSE SpMM on an R-MAT graph at widths 16 to 512: GB/s (compulsory bytes: CSR, x
// and y once, as bench_kernels counts them) as a fraction of a device-to-device copy
// measured in the same run, and the speed against the CPU kernel on the same graph.
// Prints CSV. Usage: bench_gpu [vertices (default 2^21)] [average degree (default 16)]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "strata/core/cuda_check.h"
#include "strata/core/timer.h"
#include "strata/datasets/dataset.h"
#include "strata/kernels/gpu.h"

using namespace strata;
namespace kg = kernels::gpu;

namespace {

// Best of `repeats` timings of fn on the context's stream, in seconds (CUDA events).
template <typename Fn>
double best_seconds(const gpu::Context& context, int repeats, Fn&& fn) {
  const auto stream = static_cast<cudaStream_t>(context.stream());
  cudaEvent_t start, stop;
  STRATA_CUDA_CHECK(cudaEventCreate(&start));
  STRATA_CUDA_CHECK(cudaEventCreate(&stop));
  fn();  // warm-up
  float best = 1e30f;
  for (int i = 0; i < repeats; ++i) {
    STRATA_CUDA_CHECK(cudaEventRecord(start, stream));
    fn();
    STRATA_CUDA_CHECK(cudaEventRecord(stop, stream));
    STRATA_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    STRATA_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best / 1e3;
}

// Device-to-device copy of 1 GiB: bytes read plus bytes written per second.
double copy_gbs(const gpu::Context& context) {
  const std::size_t bytes = std::size_t{1} << 30;
  gpu::DeviceBuffer a(bytes), b(bytes);
  a.zero(context);
  const double s =
      best_seconds(context, 10, [&] { gpu::copy_async(b.data(), a.data(), bytes, context); });
  return 2.0 * static_cast<double>(bytes) / s / 1e9;
}

double spmm_bytes(const Csr& a, std::int64_t width) {
  const double nnz = static_cast<double>(a.nnz()), w = static_cast<double>(width);
  return nnz * 8.0 + (a.rows + 1.0) * 8.0 + (a.cols + a.rows) * w * 4.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!gpu::available()) {
    std::fprintf(stderr, "bench_gpu: no CUDA device answers\n");
    return 1;
  }
  LoadOptions options;
  options.nodes = argc > 1 ? std::stoll(argv[1]) : std::int64_t{1} << 21;
  options.avg_degree = argc > 2 ? std::stod(argv[2]) : 16.0;
  options.features = 1;
  options.row_normalize = false;
  const Dataset d = make_rmat(options);
  Csr a = gcn_normalize(d.adjacency, degrees_plus_one(d.adjacency));
  store_values(a);  // as training holds it by default
  gpu::Context context(0);
  kg::Libraries libraries(context);
  const double copy = copy_gbs(context);
  std::printf("# %s; R-MAT %d vertices, %lld nonzeros; device copy %.1f GB/s\n",
              gpu::describe(0).c_str(), a.rows, static_cast<long long>(a.nnz()), copy);
  std::printf("width,gpu_ms,gpu_GBps,fraction_of_copy,cpu_ms,gpu_speedup\n");
  const kg::DeviceCsr device_a(a.view(), context);
  for (const std::int64_t width : {16, 32, 64, 128, 256, 512}) {
    Matrix x(a.cols, width, 0.5f), y(a.rows, width);
    kg::DeviceMatrix dx = kg::DeviceMatrix::upload(x.view(), context), dy(a.rows, width);
    kg::SpmmPlan plan(libraries, device_a, width);
    const double gpu_s = best_seconds(context, 10, [&] { plan.run(dx.view(), dy.view()); });
    double cpu_s = 1e30;
    for (int i = 0; i < 3; ++i) {
      Timer t;
      kernels::spmm(a.view(), x.view(), y.view());
      cpu_s = std::min(cpu_s, t.seconds());
    }
    const double gbs = spmm_bytes(a, width) / gpu_s / 1e9;
    std::printf("%lld,%.3f,%.1f,%.3f,%.2f,%.1f\n", static_cast<long long>(width), gpu_s * 1e3, gbs,
                gbs / copy, cpu_s * 1e3, cpu_s / gpu_s);
  }
  return 0;
}
