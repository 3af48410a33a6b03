// The CPU backend's gradient sums (double, see cpu/gradient_sums.cpp) against naive
// references at awkward sizes, strided inputs included.
#include <omp.h>

#include <catch2/catch.hpp>
#include <vector>

#include "strata/kernels/backend.h"
#include "test_util.h"

namespace strata {
namespace {

using test::random_csr;
using test::random_view;

constexpr std::int64_t kSizes[] = {0, 1, 31, 33, 257};

kernels::GradientSums sums_of(std::vector<double>& v, std::int64_t rows, std::int64_t cols) {
  v.assign(static_cast<std::size_t>(rows * cols), 0.25);  // accumulates onto what is there
  return {v.data(), rows, cols};
}

TEST_CASE("CPU backend: gradient sums are double", "[kernels][backend]") {
  CHECK(kernels::make_cpu_backend()->gradient_type() == DType::kFloat64);
}

TEST_CASE("CPU backend: gemm_tn_accumulate adds alpha aᵀ b", "[kernels][backend]") {
  const auto cpu = kernels::make_cpu_backend();
  for (std::int64_t rows : kSizes)
    for (std::int64_t a_cols : {1, 5, 33})
      for (std::int64_t b_cols : {1, 7}) {
        INFO(rows << " rows, " << a_cols << " x " << b_cols);
        std::vector<float> a_store, b_store;
        const MatrixView a = random_view(a_store, rows, a_cols, 3, 1);
        const MatrixView b = random_view(b_store, rows, b_cols, 0, 2);
        std::vector<double> got;
        cpu->gemm_tn_accumulate(0.5f, a, b, sums_of(got, a_cols, b_cols));
        for (std::int64_t i = 0; i < a_cols; ++i)
          for (std::int64_t j = 0; j < b_cols; ++j) {
            double want = 0.25;
            for (std::int64_t r = 0; r < rows; ++r)
              want += 0.5 * double{a.at(r, i)} * double{b.at(r, j)};
            REQUIRE(got[static_cast<std::size_t>(i * b_cols + j)] == Approx(want).margin(1e-12));
          }
      }
}

// Past a wave of blocks the products run on every thread and are added in block order:
// every thread count gives the same bits, and so do rows given in several calls that start
// on 4,096-row boundaries (how a recomputed layer sums its weight gradient).
TEST_CASE("CPU backend: gemm_tn_accumulate over many blocks and threads", "[kernels][backend]") {
  const auto cpu = kernels::make_cpu_backend();
  const int threads_before = omp_get_max_threads();
  for (std::int64_t width : {9, 64})
    for (std::int64_t rows : {4097, 9001}) {
      INFO(rows << " rows, width " << width);
      std::vector<float> a_store, b_store;
      const MatrixView a = random_view(a_store, rows, width, 3, 1);
      const MatrixView b = random_view(b_store, rows, 4, 0, 2);
      std::vector<double> first;
      for (int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        std::vector<double> got;
        cpu->gemm_tn_accumulate(-1.5f, a, b, sums_of(got, width, 4));
        for (std::int64_t i = 0; i < width; ++i)
          for (std::int64_t j = 0; j < 4; ++j) {
            double want = 0.25;
            for (std::int64_t r = 0; r < rows; ++r)
              want += -1.5 * double{a.at(r, i)} * double{b.at(r, j)};
            REQUIRE(got[static_cast<std::size_t>(i * 4 + j)] == Approx(want).margin(1e-10));
          }
        if (first.empty()) first = got;
        REQUIRE(got == first);
      }
      std::vector<double> sliced;
      const kernels::GradientSums sums = sums_of(sliced, width, 4);
      for (std::int64_t begin = 0; begin < rows; begin += 4096) {
        const std::int64_t n = std::min<std::int64_t>(4096, rows - begin);
        cpu->gemm_tn_accumulate(-1.5f, {a.row(begin), n, width, a.stride},
                                {b.row(begin), n, 4, b.stride}, sums);
      }
      REQUIRE(sliced == first);
    }
  omp_set_num_threads(threads_before);
}

TEST_CASE("CPU backend: column_sums_accumulate and cast_gradients", "[kernels][backend]") {
  const auto cpu = kernels::make_cpu_backend();
  for (std::int64_t rows : kSizes) {
    std::vector<float> store;
    const MatrixView x = random_view(store, rows, 33, 2, 3);
    std::vector<double> sums;
    cpu->column_sums_accumulate(x, sums_of(sums, 1, 33));
    std::vector<float> out(33);
    cpu->cast_gradients(sums.data(), out.data(), 33);
    for (std::int64_t c = 0; c < 33; ++c) {
      double want = 0.25;
      for (std::int64_t r = 0; r < rows; ++r) want += x.at(r, c);
      REQUIRE(sums[static_cast<std::size_t>(c)] == Approx(want).margin(1e-12));
      REQUIRE(out[static_cast<std::size_t>(c)] == static_cast<float>(want));
    }
  }
}

TEST_CASE("CPU backend: sparse features accumulate Xᵀ d", "[kernels][backend]") {
  const auto cpu = kernels::make_cpu_backend();
  for (LocalId rows : {0, 1, 31, 257}) {
    const Csr x = random_csr(rows, 33, 0.2f, 4);
    const auto features = cpu->sparse_features(x.view());
    std::vector<float> d_store;
    const MatrixView d = random_view(d_store, rows, 5, 0, 5);
    std::vector<double> got;
    features->accumulate_transposed(d, sums_of(got, 33, 5));
    std::vector<double> want(33 * 5, 0.25);
    for (LocalId r = 0; r < rows; ++r)
      for (EdgeOffset e = x.offsets[r]; e < x.offsets[r + 1]; ++e)
        for (std::int64_t j = 0; j < 5; ++j)
          want[static_cast<std::size_t>(x.indices[e] * 5 + j)] += double{x.values[e]} * d.at(r, j);
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-12));
  }
}

}  // namespace
}  // namespace strata
