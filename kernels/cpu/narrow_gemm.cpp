// c = a b where b is narrow on one side (at most 16 columns, or at most 16 rows): the
// shapes of a classifier layer (N x 64 times 64 x classes, and its backward, N x classes
// times classes x 64). OpenBLAS takes 1.0-1.1 ms for either at N = 34,493 on two cores of
// this machine, a tenth of its rate at 64 x 64; these loops keep each output row in
// registers. Every entry of c is one fused multiply-add chain over k in order, so a row's
// result does not depend on the rows around it or on the thread count.
#include "narrow_gemm.h"

#include <algorithm>
#include <vector>

namespace strata::kernels {
namespace {

constexpr std::int64_t kNarrow = 16;
constexpr std::int64_t kRowsAtOnce = 4;  // independent chains hide the FMA latency

// Rows r .. r + R - 1 of c = those of a times b (k x 16, padded with zeros), n columns kept.
template <int R>
inline __attribute__((always_inline)) void few_columns_rows(ConstMatrixView a, const float* b,
                                                            std::int64_t n, MatrixView c,
                                                            std::int64_t r) {
  using V = float __attribute__((vector_size(64), aligned(4), may_alias));
  V acc[R] = {};
  for (std::int64_t k = 0; k < a.cols; ++k) {
    const V bk = *reinterpret_cast<const V*>(b + k * kNarrow);
    for (int i = 0; i < R; ++i) acc[i] += a.row(r + i)[k] * bk;
  }
  for (int i = 0; i < R; ++i) {
    const float* row = reinterpret_cast<const float*>(&acc[i]);
    std::copy(row, row + n, c.row(r + i));
  }
}

// c rows [begin, end) = a rows times b (k x 16, padded with zeros), n columns kept.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void few_columns(
    ConstMatrixView a, const float* b, std::int64_t n, MatrixView c, std::int64_t begin,
    std::int64_t end) {
  std::int64_t r = begin;
  for (; r + kRowsAtOnce <= end; r += kRowsAtOnce) few_columns_rows<kRowsAtOnce>(a, b, n, c, r);
  for (; r < end; ++r) few_columns_rows<1>(a, b, n, c, r);
}

// c rows [begin, end) = a rows (k <= 16 columns) times b (k x n, row-major), 64 columns
// of c at a time.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void few_rows(
    ConstMatrixView a, const float* b, std::int64_t n, MatrixView c, std::int64_t begin,
    std::int64_t end) {
  constexpr std::int64_t kChunk = 64;
  for (std::int64_t r = begin; r < end; ++r)
    for (std::int64_t j0 = 0; j0 < n; j0 += kChunk) {
      const std::int64_t width = std::min(kChunk, n - j0);
      float acc[kChunk] = {};
      for (std::int64_t k = 0; k < a.cols; ++k) {
        const float x = a.row(r)[k];
        const float* bk = b + k * n + j0;
        if (width == kChunk)
          for (std::int64_t j = 0; j < kChunk; ++j) acc[j] += x * bk[j];
        else
          for (std::int64_t j = 0; j < width; ++j) acc[j] += x * bk[j];
      }
      std::copy(acc, acc + width, c.row(r) + j0);
    }
}

// op(b) as a dense k x width matrix (width = n, or kNarrow padded with zeros).
std::vector<float> dense_op(ConstMatrixView b, bool trans_b, std::int64_t k, std::int64_t n,
                            std::int64_t width) {
  std::vector<float> out(static_cast<std::size_t>(k * width), 0.0f);
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < n; ++j) out[i * width + j] = trans_b ? b.at(j, i) : b.at(i, j);
  return out;
}

}  // namespace

bool narrow_gemm_applies(std::int64_t m, std::int64_t k, std::int64_t n) {
  return m >= 1024 && (n <= kNarrow || k <= kNarrow) && k * n <= 16 * 1024 && k > 0 && n > 0;
}

void narrow_gemm(ConstMatrixView a, ConstMatrixView b, bool trans_b, MatrixView c) {
  const std::int64_t k = a.cols, n = c.cols;
  const bool columns = n <= kNarrow;
  const std::vector<float> dense = dense_op(b, trans_b, k, n, columns ? kNarrow : n);
  const std::int64_t blocks = (c.rows + 255) / 256;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < blocks; ++i) {
    const std::int64_t begin = i * 256, end = std::min(c.rows, begin + 256);
    if (columns)
      few_columns(a, dense.data(), n, c, begin, end);
    else
      few_rows(a, dense.data(), n, c, begin, end);
  }
}

}  // namespace strata::kernels
