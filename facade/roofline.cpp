#include "roofline.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "best_seconds.h"
#include "number_file.h"
#include "strata/core/error.h"
#include "strata/core/matrix.h"

namespace strata {
namespace {

constexpr double kMiB = 1 << 20;
constexpr int kStreamMiB[] = {1, 4, 16, 64, 512};
constexpr std::int64_t kGemmRows = 32768, kGemmWidth = 64, kGemmBlockRows = 512;

// a = b + 3 c over three arrays of `bytes` / 3 together, repeated so that small sizes
// run long enough to time.
StreamRate triad(double bytes) {
  const auto n = static_cast<std::int64_t>(bytes / 3 / sizeof(float));
  std::vector<float> a(static_cast<std::size_t>(n), 1.0f), b(a.size(), 2.0f), c(a.size(), 3.0f);
  const int repeats = std::max(1, static_cast<int>(64 * kMiB / bytes));
  // One parallel region: each thread repeats its own static slice without waiting for the
  // others, so small sizes time the caches, not the threads' wake-ups.
  const double seconds = best_seconds([&] {
#pragma omp parallel
    for (int r = 0; r < repeats; ++r) {
#pragma omp for schedule(static) nowait
      for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    }
  });
  return {bytes, 3.0 * sizeof(float) * static_cast<double>(n) * repeats / seconds};
}

// The better of one whole-matrix product and the same product in 512-row blocks, a block
// per thread inside one parallel region (the CPU's GEMM then runs on its caller's thread,
// each block in that core's cache: how the fused layer kernels call it). Either may be the
// faster on a given machine; the floor must not be beaten by our own kernels.
double gemm_rate(const kernels::Backend& backend) {
  const kernels::Tensor a =
      kernels::to_backend(backend, Matrix(kGemmRows, kGemmWidth, 0.5f).view());
  const kernels::Tensor b =
      kernels::to_backend(backend, Matrix(kGemmWidth, kGemmWidth, 0.25f).view());
  kernels::Tensor c(backend, kGemmRows, kGemmWidth);
  const double whole = best_seconds([&] {
    backend.gemm(false, false, 1.0f, a.view(), b.view(), 0.0f, c.view());
    backend.synchronize();
  });
  const double blocks = best_seconds([&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < kGemmRows; r += kGemmBlockRows)
      backend.gemm(false, false, 1.0f, a.view().rows_range(r, r + kGemmBlockRows), b.view(), 0.0f,
                   c.view().rows_range(r, r + kGemmBlockRows));
  });
  return 2.0 * kGemmRows * kGemmWidth * kGemmWidth / std::min(whole, blocks);
}

std::string stream_name(int mib) {
  return "stream_" + std::to_string(mib) + "MiB_bytes_per_s";
}

Roofline read_roofline(const std::string& path) {
  std::vector<std::string> names{"gather_bytes_per_s", "gemm_flops_per_s"};
  for (int mib : kStreamMiB) names.push_back(stream_name(mib));
  const auto n = read_numbers(path, "--roofline", names, true);
  Roofline r{{}, n.at("gather_bytes_per_s"), n.at("gemm_flops_per_s"), path};
  for (int mib : kStreamMiB) r.stream.push_back({mib * kMiB, n.at(stream_name(mib))});
  return r;
}

void write_roofline(const std::string& path, const Roofline& r) {
  std::ofstream out(path);
  out.precision(6);
  out << "# strata train --profile: this machine's roofline\n";
  for (std::size_t i = 0; i < r.stream.size(); ++i)
    out << stream_name(kStreamMiB[i]) << " " << r.stream[i].bytes_per_s << "\n";
  out << "gather_bytes_per_s " << r.gather_bytes_per_s << "\ngemm_flops_per_s "
      << r.gemm_flops_per_s << "\n";
  STRATA_REQUIRE(out.good(), "--roofline ", path, ": cannot be written");
}

}  // namespace

double stream_rate_at(const std::vector<StreamRate>& stream, double bytes) {
  if (stream.empty()) return 0;
  if (bytes <= stream.front().bytes) return stream.front().bytes_per_s;
  for (std::size_t i = 1; i < stream.size(); ++i) {
    if (bytes > stream[i].bytes) continue;
    const StreamRate &lo = stream[i - 1], &hi = stream[i];
    const double t = std::log(bytes / lo.bytes) / std::log(hi.bytes / lo.bytes);
    return lo.bytes_per_s + t * (hi.bytes_per_s - lo.bytes_per_s);
  }
  return stream.back().bytes_per_s;
}

Roofline roofline_for(const kernels::Backend& backend, const std::string& path) {
  if (!path.empty() && std::filesystem::exists(path)) return read_roofline(path);
  if (std::string(backend.name()) != "cpu") return {{}, 0, 0, "none"};
  Roofline r;
  for (int mib : kStreamMiB) r.stream.push_back(triad(mib * kMiB));
  // A gathered row comes at best from the nearest cache: the smallest triad's rate.
  r.gather_bytes_per_s = r.stream.front().bytes_per_s;
  r.gemm_flops_per_s = gemm_rate(backend);
  r.source = "measured";
  if (!path.empty()) write_roofline(path, r);
  return r;
}

}  // namespace strata
