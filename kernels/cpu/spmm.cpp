// CPU SpMM: rows in parallel, each row summed in CSR order (deterministic per row).
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

void scale_row(float* y, std::int64_t w, float beta) {
  if (beta == 0.0f) {
    for (std::int64_t c = 0; c < w; ++c) y[c] = 0.0f;  // never reads y: NaN-safe
  } else {
    for (std::int64_t c = 0; c < w; ++c) y[c] *= beta;
  }
}

void accumulate_row(float* __restrict y, const float* __restrict x, std::int64_t w, float a) {
#pragma omp simd
  for (std::int64_t c = 0; c < w; ++c) y[c] += a * x[c];
}

}  // namespace

void spmm(CsrView a, ConstMatrixView x, MatrixView y, float beta) {
  STRATA_CHECK(x.rows == a.cols, "spmm: x has ", x.rows, " rows, a has ", a.cols, " cols");
  STRATA_CHECK(y.rows == a.rows, "spmm: y has ", y.rows, " rows, a has ", a.rows);
  STRATA_CHECK(y.cols == x.cols, "spmm: widths differ: x ", x.cols, ", y ", y.cols);
  const std::int64_t w = x.cols;
  const std::int64_t rows = a.rows;
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t r = 0; r < rows; ++r) {
    float* out = y.row(r);
    scale_row(out, w, beta);
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
      const float value = a.values ? a.values[e] : 1.0f;
      accumulate_row(out, x.row(a.indices[e]), w, value);
    }
  }
}

}  // namespace strata::kernels
