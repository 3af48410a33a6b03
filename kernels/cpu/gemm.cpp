// CPU GEMM through CBLAS (row-major, strides passed as leading dimensions).
#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "narrow_gemm.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

struct Shape {
  std::int64_t rows;
  std::int64_t cols;
};

Shape op_shape(ConstMatrixView m, bool trans) {
  return trans ? Shape{m.cols, m.rows} : Shape{m.rows, m.cols};
}

// BLAS rejects a leading dimension below 1 even for empty operands.
blasint leading_dim(std::int64_t stride, std::int64_t cols) {
  return static_cast<blasint>(std::max<std::int64_t>({stride, cols, 1}));
}

// OpenBLAS's OpenMP build gives each of its threads a packing buffer whose touched part
// grows with the rows and stays resident after the call (1M x 64 times 64 x 64 on 2 threads:
// 36 MB a thread, which no memory estimate sees). Called from inside our own parallel loop
// it runs single-threaded, on a few MB; the rows' sums are the same either way (a row of C
// depends on its row of A and on B only, summed over k in the same blocks).
constexpr std::int64_t kMinRowsPerThread = 4096;

bool split_rows(std::int64_t rows) {
  return omp_get_max_threads() > 1 && !omp_in_parallel() && rows >= 2 * kMinRowsPerThread;
}

void blas_gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b,
               float beta, MatrixView c, std::int64_t inner) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(c.rows),
              static_cast<blasint>(c.cols), static_cast<blasint>(inner), alpha, a.data,
              leading_dim(a.stride, a.cols), b.data, leading_dim(b.stride, b.cols), beta, c.data,
              leading_dim(c.stride, c.cols));
}

// C's rows in one block per thread, A's rows with them (A not transposed).
void gemm_by_rows(bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b, float beta,
                  MatrixView c, std::int64_t inner) {
  const std::int64_t threads =
      std::min<std::int64_t>(omp_get_max_threads(), c.rows / kMinRowsPerThread);
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t begin = c.rows * t / threads, end = c.rows * (t + 1) / threads;
    const ConstMatrixView a_rows{a.data + begin * a.stride, end - begin, a.cols, a.stride};
    blas_gemm(false, trans_b, alpha, a_rows, b, beta, c.rows_range(begin, end), inner);
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b, float beta,
          MatrixView c) {
  const Shape sa = op_shape(a, trans_a);
  const Shape sb = op_shape(b, trans_b);
  STRATA_CHECK(sa.cols == sb.rows, "gemm: inner dims ", sa.cols, " vs ", sb.rows);
  STRATA_CHECK(c.rows == sa.rows && c.cols == sb.cols, "gemm: c is ", c.rows, "x", c.cols,
               ", expected ", sa.rows, "x", sb.cols);
  if (c.rows == 0 || c.cols == 0) return;
  if (sa.cols == 0) {
    if (beta == 0.0f)
      zero(c);
    else
      scale(c, beta);
    return;
  }
  if (!trans_a && alpha == 1.0f && beta == 0.0f && narrow_gemm_applies(c.rows, sa.cols, c.cols)) {
    narrow_gemm(a, b, trans_b, c);
    return;
  }
  if (!trans_a && split_rows(c.rows))
    gemm_by_rows(trans_b, alpha, a, b, beta, c, sa.cols);
  else
    blas_gemm(trans_a, trans_b, alpha, a, b, beta, c, sa.cols);
}

}  // namespace strata::kernels
