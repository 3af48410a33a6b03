// SpMM and GEMM against naive references at awkward sizes, with strided views.
#include <omp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"
#include "test_util.h"

namespace strata {
namespace {

const std::int64_t kSizes[] = {0, 1, 31, 33, 257, 1001};

// Widths that reach every path of the CPU kernel (AVX2 tiles of 64 to 8 floats, SSE2
// tiles of 32 to 4): the scalar tail alone (1, 3), single tiles (4, 8, 16, 32, 64),
// tiles and tails (12, 17, 33, 257) and every tile size at once (127).
const std::int64_t kWidths[] = {0, 1, 3, 4, 8, 12, 16, 17, 32, 33, 64, 127, 257};

// y = a · x + beta · y in double precision, summed in CSR order.
Matrix spmm_reference(const Csr& a, ConstMatrixView x, ConstMatrixView y, float beta) {
  Matrix expected(a.rows, x.cols);
  for (LocalId r = 0; r < a.rows; ++r) {
    for (std::int64_t c = 0; c < x.cols; ++c) {
      double sum = beta == 0.0f ? 0.0 : double{beta} * y.at(r, c);
      for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e)
        sum += double{a.value(r, e)} * x.at(a.indices[e], c);
      expected.at(r, c) = static_cast<float>(sum);
    }
  }
  return expected;
}

void check_spmm(const Csr& a, std::int64_t w, float beta) {
  std::vector<float> xs, ys;
  const MatrixView x = test::random_view(xs, a.cols, w, 3, 1);
  const MatrixView y = test::random_view(ys, a.rows, w, 2, 2);
  if (beta == 0.0f && w > 0)  // beta = 0 must never read y
    for (LocalId r = 0; r < a.rows; ++r) y.at(r, w - 1) = std::nanf("");
  const Matrix expected = spmm_reference(a, x, y, beta);
  kernels::spmm(a.view(), x, y, beta);
  for (LocalId r = 0; r < a.rows; ++r)
    for (std::int64_t c = 0; c < w; ++c)
      REQUIRE(y.at(r, c) == Approx(expected.at(r, c)).margin(1e-4));
}

TEST_CASE("spmm matches a naive reference", "[kernels][spmm]") {
  // Each code path this CPU has: SSE2, AVX2 and AVX-512 (a cap above the CPU's runs its best).
  const std::string isa = GENERATE("sse2", "avx2", "avx512");
  setenv("STRATA_SPMM_ISA", isa.c_str(), 1);
  for (const std::int64_t n : kSizes) {
    const auto rows = static_cast<LocalId>(n);
    const auto cols = static_cast<LocalId>((n * 3) / 2 + 1);
    Csr a = test::random_csr(rows, cols, n > 100 ? 0.01f : 0.2f, 7 + static_cast<std::uint64_t>(n));
    for (const std::int64_t w : kWidths) {
      INFO("n " << n << " width " << w);
      check_spmm(a, w, 0.5f);
      check_spmm(a, w, 0.0f);
    }
    a.values.clear();  // unweighted: every entry is 1
    for (const std::int64_t w : {std::int64_t{3}, std::int64_t{33}}) check_spmm(a, w, 1.0f);
    a.row_scale = test::random_scales(rows, 1);  // factored: row_scale[r] · col_scale[c]
    a.col_scale = test::random_scales(cols, 2);
    for (const std::int64_t w : {std::int64_t{3}, std::int64_t{33}}) check_spmm(a, w, 0.5f);
    a.col_scale.clear();  // a scale a row (a mean)
    for (const std::int64_t w : {std::int64_t{3}, std::int64_t{33}}) check_spmm(a, w, 0.5f);
  }
  unsetenv("STRATA_SPMM_ISA");
}

// A factored matrix's entries are formed as row_scale[r] · col_scale[c], one rounding: the
// product is the same bits as that product stored as a value, and so are the sums.
TEST_CASE("spmm of a factored matrix is bit for bit that of its values stored", "[kernels][spmm]") {
  const std::string isa = GENERATE("sse2", "avx2", "avx512");
  setenv("STRATA_SPMM_ISA", isa.c_str(), 1);
  Csr factored = test::random_csr(301, 257, 0.05f, 3);
  factored.values.clear();
  factored.row_scale = test::random_scales(factored.rows, 4);
  factored.col_scale = test::random_scales(factored.cols, 5);
  Csr stored = factored;
  stored.values = entry_values(factored.view());
  stored.row_scale.clear();
  stored.col_scale.clear();
  for (const std::int64_t w : {5, 16, 64, 100}) {
    INFO(isa << " width " << w);
    std::vector<float> xs, ys, zs;
    const MatrixView x = test::random_view(xs, factored.cols, w, 3, 1);
    const MatrixView y = test::random_view(ys, factored.rows, w, 1, 2);
    const MatrixView z = test::random_view(zs, factored.rows, w, 1, 2);
    kernels::spmm(factored.view(), x, y, 0.5f);
    kernels::spmm(stored.view(), x, z, 0.5f);
    REQUIRE(ys == zs);
  }
  unsetenv("STRATA_SPMM_ISA");
}

// bf16 rows widened as they are read: the same bits as spmm of the rows decoded to fp32,
// at every width path, for stored, factored and pattern-only matrices.
TEST_CASE("spmm of bf16 rows is bit for bit spmm of the rows decoded", "[kernels][spmm]") {
  const std::string isa = GENERATE("sse2", "avx2", "avx512");
  setenv("STRATA_SPMM_ISA", isa.c_str(), 1);
  Csr a = test::random_csr(211, 173, 0.05f, 11);
  for (const int form : {0, 1, 2}) {  // values, factored, pattern only
    if (form == 1) {
      a.values.clear();
      a.row_scale = test::random_scales(a.rows, 4);
      a.col_scale = test::random_scales(a.cols, 5);
    } else if (form == 2) {
      a.row_scale.clear();
      a.col_scale.clear();
    }
    for (const std::int64_t w : kWidths) {
      INFO(isa << " form " << form << " width " << w);
      std::vector<float> xs, ys, zs;
      const MatrixView x = test::random_view(xs, a.cols, w, 3, 1);
      std::vector<std::uint16_t> packed(static_cast<std::size_t>(a.cols * w));
      for (LocalId r = 0; r < a.cols; ++r)
        for (std::int64_t c = 0; c < w; ++c) {
          packed[static_cast<std::size_t>(r * w + c)] = kernels::row_codec::to_bf16(x.at(r, c));
          x.at(r, c) = kernels::row_codec::from_bf16(packed[static_cast<std::size_t>(r * w + c)]);
        }
      const MatrixView y = test::random_view(ys, a.rows, w, 1, 2);
      const MatrixView z = test::random_view(zs, a.rows, w, 1, 2);
      kernels::spmm(a.view(), x, y, 0.5f);
      kernels::spmm(a.view(), Bf16RowsView{packed.data(), a.cols, w}, z, 0.5f);
      REQUIRE(ys == zs);
    }
  }
  unsetenv("STRATA_SPMM_ISA");
}

// AVX-512 and AVX2 make the same fused multiply-adds lane by lane, the scalar tails too:
// the same bits, at widths that end in tiles, vectors and tails of either.
TEST_CASE("spmm's 256- and 512-bit code agree bit for bit", "[kernels][spmm]") {
  const Csr a = test::random_csr(999, 1201, 0.02f, 11);
  for (const std::int64_t w : {5, 12, 24, 64, 200}) {
    INFO("width " << w);
    std::vector<float> xs, y256s, y512s;
    const MatrixView x = test::random_view(xs, a.cols, w, 3, 1);
    const MatrixView y256 = test::random_view(y256s, a.rows, w, 1, 2);
    const MatrixView y512 = test::random_view(y512s, a.rows, w, 1, 2);
    setenv("STRATA_SPMM_ISA", "avx2", 1);
    kernels::spmm(a.view(), x, y256, 0.5f);
    setenv("STRATA_SPMM_ISA", "avx512", 1);
    kernels::spmm(a.view(), x, y512, 0.5f);
    unsetenv("STRATA_SPMM_ISA");
    REQUIRE(y256s == y512s);
  }
}

TEST_CASE("spmm is bitwise the same for any thread count", "[kernels][spmm]") {
  const Csr a = test::random_csr(1001, 700, 0.02f, 5);
  for (const std::int64_t w : {std::int64_t{17}, std::int64_t{127}}) {
    std::vector<float> xs, ys;
    const MatrixView x = test::random_view(xs, a.cols, w, 1, 3);
    const MatrixView y = test::random_view(ys, a.rows, w, 0, 4);
    Matrix first(a.rows, w);
    const int saved = omp_get_max_threads();
    for (const int threads : {1, 3}) {
      omp_set_num_threads(threads);
      kernels::spmm(a.view(), x, threads == 1 ? first.view() : y, 0.0f);
    }
    omp_set_num_threads(saved);
    for (LocalId r = 0; r < a.rows; ++r)
      for (std::int64_t c = 0; c < w; ++c) REQUIRE(y.at(r, c) == first.at(r, c));
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

void check_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha = 2.0f, float beta = 0.25f) {
  std::vector<float> as, bs, cs;
  const MatrixView a = ta ? test::random_view(as, k, m, 1, 3) : test::random_view(as, m, k, 1, 3);
  const MatrixView b = tb ? test::random_view(bs, n, k, 2, 4) : test::random_view(bs, k, n, 2, 4);
  const MatrixView c = test::random_view(cs, m, n, 3, 5);
  Matrix expected(m, n);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = beta == 0.0f ? 0.0 : double{beta} * c.at(i, j);
      for (std::int64_t p = 0; p < k; ++p)
        sum += double{alpha} * (ta ? a.at(p, i) : a.at(i, p)) * (tb ? b.at(j, p) : b.at(p, j));
      expected.at(i, j) = static_cast<float>(sum);
    }
  }
  if (beta == 0.0f)  // must not be read
    for (std::int64_t i = 0; i < m; ++i) c.at(i, n - 1) = std::nanf("");
  kernels::gemm(ta, tb, alpha, a, b, beta, c);
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

// The narrow path (cpu/narrow_gemm.cpp): at least 1,024 rows, op(b) at most 16 wide or at
// most 16 deep; a classifier's forward and backward shapes and the edges of both loops.
TEST_CASE("gemm with a narrow right-hand side matches a naive reference", "[kernels][gemm]") {
  for (const bool tb : {false, true}) {
    for (const std::int64_t n : {1, 5, 15, 16}) check_gemm(false, tb, 1027, n, 64, 1.0f, 0.0f);
    for (const std::int64_t k : {1, 5, 16}) {
      check_gemm(false, tb, 1030, 64, k, 1.0f, 0.0f);
      check_gemm(false, tb, 1024, 70, k, 1.0f, 0.0f);
    }
    check_gemm(false, tb, 2049, 3, 200, 1.0f, 0.0f);
  }
}

// alpha a op(b) on `threads` OpenMP threads, as stored.
std::vector<float> gemm_on(int threads, bool tb, float alpha, ConstMatrixView a,
                           ConstMatrixView b) {
  Matrix c(a.rows, tb ? b.rows : b.cols);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  kernels::gemm(false, tb, alpha, a, b, 0.0f, c.view());
  omp_set_num_threads(saved);
  return c.storage();
}

// Each row's entries are one chain over k: the same bits on 1 and 3 threads.
TEST_CASE("narrow gemm is bitwise the same for any thread count", "[kernels][gemm]") {
  for (const std::int64_t n : {5, 64}) {
    const std::int64_t k = n == 5 ? 64 : 7;
    std::vector<float> as, bs;
    const MatrixView a = test::random_view(as, 3001, k, 1, 1);
    const MatrixView b = test::random_view(bs, k, n, 0, 2);
    REQUIRE(gemm_on(1, false, 1.0f, a, b) == gemm_on(3, false, 1.0f, a, b));
  }
}

// Tall products run as one BLAS call per thread over its rows (cpu/gemm.cpp), so that
// OpenBLAS's own threads keep no packing buffers that grow with the rows: the same bits as
// one thread, deep (k past BLAS's blocking) and with strided views, and a naive reference.
TEST_CASE("tall gemm is bitwise the same for any thread count", "[kernels][gemm]") {
  check_gemm(false, false, 9001, 33, 17);
  check_gemm(false, true, 8193, 20, 31);
  for (const bool tb : {false, true}) {
    const std::int64_t m = 10007, k = 1500, n = 40;
    std::vector<float> as, bs;
    const MatrixView a = test::random_view(as, m, k, 1, 3);
    const MatrixView b = tb ? test::random_view(bs, n, k, 0, 2) : test::random_view(bs, k, n, 0, 2);
    REQUIRE(gemm_on(1, tb, 1.5f, a, b) == gemm_on(3, tb, 1.5f, a, b));
  }
}

}  // namespace
}  // namespace strata
