// CPU GEMM through CBLAS (row-major, strides passed as leading dimensions).
#include <cblas.h>

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
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(c.rows),
              static_cast<blasint>(c.cols), static_cast<blasint>(sa.cols), alpha, a.data,
              leading_dim(a.stride, a.cols), b.data, leading_dim(b.stride, b.cols), beta, c.data,
              leading_dim(c.stride, c.cols));
}

}  // namespace strata::kernels
