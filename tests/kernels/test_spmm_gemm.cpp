// SpMM and GEMM against naive references at awkward sizes, with strided views.
#include <catch2/catch.hpp>

#include "strata/kernels/kernels.h"
#include "test_util.h"

namespace strata {
namespace {

const std::int64_t kSizes[] = {0, 1, 31, 33, 257, 1001};

TEST_CASE("spmm matches a naive reference", "[kernels][spmm]") {
  for (const std::int64_t n : kSizes) {
    for (const std::int64_t w : {std::int64_t{0}, std::int64_t{1}, std::int64_t{33}}) {
      const auto rows = static_cast<LocalId>(n);
      const auto cols = static_cast<LocalId>((n * 3) / 2 + 1);
      const Csr a = test::random_csr(rows, cols, n > 100 ? 0.01f : 0.2f, 7 + static_cast<std::uint64_t>(n));
      std::vector<float> xs, ys;
      const MatrixView x = test::random_view(xs, cols, w, 3, 1);
      const MatrixView y = test::random_view(ys, rows, w, 2, 2);
      Matrix expected(rows, w);
      for (LocalId r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < w; ++c) {
          double sum = 0.5 * y.at(r, c);
          for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e)
            sum += double{a.values[e]} * x.at(a.indices[e], c);
          expected.at(r, c) = static_cast<float>(sum);
        }
      }
      kernels::spmm(a.view(), x, y, 0.5f);
      for (LocalId r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < w; ++c)
          REQUIRE(y.at(r, c) == Approx(expected.at(r, c)).margin(1e-4));
    }
  }
}

TEST_CASE("spmm with null values treats entries as 1", "[kernels][spmm]") {
  // 0 - 1 - 2 (path), no self loops
  Csr a;
  a.rows = a.cols = 3;
  a.offsets = {0, 1, 3, 4};
  a.indices = {1, 0, 2, 1};
  Matrix x(3, 1);
  x.at(0, 0) = 1;
  x.at(1, 0) = 10;
  x.at(2, 0) = 100;
  Matrix y(3, 1, 42.0f);
  kernels::spmm(a.view(), x.view(), y.view());
  CHECK(y.at(0, 0) == 10);
  CHECK(y.at(1, 0) == 101);
  CHECK(y.at(2, 0) == 10);
}

void check_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<float> as, bs, cs;
  const MatrixView a = ta ? test::random_view(as, k, m, 1, 3) : test::random_view(as, m, k, 1, 3);
  const MatrixView b = tb ? test::random_view(bs, n, k, 2, 4) : test::random_view(bs, k, n, 2, 4);
  const MatrixView c = test::random_view(cs, m, n, 3, 5);
  Matrix expected(m, n);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.25 * c.at(i, j);
      for (std::int64_t p = 0; p < k; ++p)
        sum += 2.0 * (ta ? a.at(p, i) : a.at(i, p)) * (tb ? b.at(j, p) : b.at(p, j));
      expected.at(i, j) = static_cast<float>(sum);
    }
  }
  kernels::gemm(ta, tb, 2.0f, a, b, 0.25f, c);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      REQUIRE(c.at(i, j) == Approx(expected.at(i, j)).margin(1e-3));
}

TEST_CASE("gemm matches a naive reference", "[kernels][gemm]") {
  for (const std::int64_t n : kSizes) {
    if (n > 257) continue;  // naive reference cost
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        check_gemm(ta, tb, n, 17, 33);
        check_gemm(ta, tb, 31, n, 5);
        check_gemm(ta, tb, 3, 7, n);
      }
  }
  check_gemm(false, false, 1001, 3, 2);
}

}  // namespace
}  // namespace strata
