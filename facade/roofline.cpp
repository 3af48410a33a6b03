#include "roofline.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "best_seconds.h"
#include "number_file.h"
#include "strata/core/error.h"
#include "strata/core/matrix.h"

namespace strata {
namespace {

constexpr std::size_t kStreamFloats = std::size_t{1} << 25;  // 128 MiB per array
constexpr std::int64_t kGatherRows = std::int64_t{1} << 17, kRowFloats = 64;
constexpr std::int64_t kGatherReads = std::int64_t{1} << 20;
constexpr std::int64_t kGemmRows = 32768, kGemmWidth = 64;

double stream_rate() {
  std::vector<float> a(kStreamFloats, 1.0f), b(kStreamFloats, 2.0f), c(kStreamFloats, 3.0f);
  const auto n = static_cast<std::int64_t>(kStreamFloats);
  const double seconds = best_seconds([&] {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
  });
  return 3.0 * sizeof(float) * static_cast<double>(n) / seconds;
}

// Summing rows listed at random: an SpMM's reads of x with no reuse to exploit.
double gather_rate() {
  const Matrix x(kGatherRows, kRowFloats, 1.0f);
  std::vector<std::int32_t> rows(static_cast<std::size_t>(kGatherReads));
  std::mt19937 random(7);
  for (auto& r : rows) r = static_cast<std::int32_t>(random() % kGatherRows);
  float total = 0;
  const double seconds = best_seconds([&] {
    float sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < kGatherReads; ++i) {
      const float* row = x.data() + static_cast<std::int64_t>(rows[i]) * kRowFloats;
      float part = 0;
      for (std::int64_t j = 0; j < kRowFloats; ++j) part += row[j];
      sum += part;
    }
    total += sum;
  });
  STRATA_CHECK(total > 0, "the gather measurement read nothing");
  return static_cast<double>(kGatherReads * kRowFloats) * sizeof(float) / seconds;
}

double gemm_rate(const kernels::Backend& backend) {
  const kernels::Tensor a =
      kernels::to_backend(backend, Matrix(kGemmRows, kGemmWidth, 0.5f).view());
  const kernels::Tensor b =
      kernels::to_backend(backend, Matrix(kGemmWidth, kGemmWidth, 0.25f).view());
  kernels::Tensor c(backend, kGemmRows, kGemmWidth);
  const double seconds = best_seconds([&] {
    backend.gemm(false, false, 1.0f, a.view(), b.view(), 0.0f, c.view());
    backend.synchronize();
  });
  return 2.0 * kGemmRows * kGemmWidth * kGemmWidth / seconds;
}

constexpr const char* kNames[] = {"stream_bytes_per_s", "gather_bytes_per_s", "gemm_flops_per_s"};

Roofline read_roofline(const std::string& path) {
  const auto n = read_numbers(path, "--roofline", {kNames[0], kNames[1], kNames[2]}, true);
  return {n.at(kNames[0]), n.at(kNames[1]), n.at(kNames[2]), path};
}

void write_roofline(const std::string& path, const Roofline& r) {
  std::ofstream out(path);
  out.precision(6);
  out << "# strata train --profile: this machine's roofline\n"
      << kNames[0] << " " << r.stream_bytes_per_s << "\n"
      << kNames[1] << " " << r.gather_bytes_per_s << "\n"
      << kNames[2] << " " << r.gemm_flops_per_s << "\n";
  STRATA_REQUIRE(out.good(), "--roofline ", path, ": cannot be written");
}

}  // namespace

Roofline roofline_for(const kernels::Backend& backend, const std::string& path) {
  if (!path.empty() && std::filesystem::exists(path)) return read_roofline(path);
  if (std::string(backend.name()) != "cpu") return {0, 0, 0, "none"};
  Roofline r{stream_rate(), gather_rate(), gemm_rate(backend), "measured"};
  if (!path.empty()) write_roofline(path, r);
  return r;
}

}  // namespace strata
