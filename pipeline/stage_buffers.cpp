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

void drop_features(const FeatureMatrix& features, std::optional<SparseFeatures>& sparse,
                   Matrix& dropped, std::span<const GlobalId> ids, float p, std::uint64_t seed,
                   std::int64_t epoch) {
  if (sparse) {
    if (p > 0.0f)
      sparse->dropout(ids, p, seed, epoch, 0);
    else
      sparse->reset();
    return;
  }
  const Matrix& x = features.dense();
  ensure_shape(dropped, x.rows(), x.cols());
  kernels::copy(x.view(), dropped.view());
  if (p > 0.0f) kernels::dropout(dropped.view(), ids, p, seed, epoch, 0);
}

void take_gradient(Matrix& g, const ChunkBlock& b, MatrixView out) {
  kernels::copy(rows(g, b), out);
  kernels::zero(rows(g, b));
}

}  // namespace strata::stage
