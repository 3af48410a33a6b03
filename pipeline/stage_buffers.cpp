#include "strata/pipeline/stage_buffers.h"

#include "strata/kernels/kernels.h"

namespace strata::stage {

void scatter_gradient(const ChunkBlock& b, ConstMatrixView grad_z, Matrix& g,
                      std::vector<float>& scratch_buffer) {
  const MatrixView touched =
      scratch(scratch_buffer, static_cast<std::int64_t>(b.touched.size()), grad_z.cols);
  kernels::spmm(b.transposed.view(), grad_z, touched);
  const MatrixView out = g.view();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < b.touched.size(); ++i) {
    float* dst = out.row(b.touched[i]);
    const float* src = touched.row(static_cast<std::int64_t>(i));
    for (std::int64_t c = 0; c < out.cols; ++c) dst[c] += src[c];
  }
}

void take_gradient(Matrix& g, const ChunkBlock& b, MatrixView out) {
  kernels::copy(rows(g, b), out);
  kernels::zero(rows(g, b));
}

}  // namespace strata::stage
