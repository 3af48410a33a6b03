#include "strata/training/block_rows.h"

namespace strata {

BlockRows::BlockRows(const RowLayout& layout, const kernels::Backend& backend, StageHalo* halo)
    : layout_(layout),
      backend_(backend),
      halo_(halo),
      ids_(kernels::to_backend<GlobalId>(backend, layout.order)),
      chunks_(layout.chunks.size()) {}

BlockRows::Chunk& BlockRows::chunk(const Block& b) {
  STRATA_CHECK(b.chunk >= 0 && b.chunk < layout_.chunk_count(), "block of chunk ", b.chunk, " of ",
               layout_.chunk_count());
  return chunks_[static_cast<std::size_t>(b.chunk)];
}

// A block of every row multiplies the whole matrix (local and graph mode take this path
// every time); a chunk its own rows.
void BlockRows::aggregate(const Block& b, ConstMatrixView x, MatrixView out) {
  if (whole(b)) {
    if (!a_hat_) a_hat_ = backend_.sparse(layout_.a_hat.view());
    a_hat_->multiply(x, out);
    return;
  }
  Chunk& c = chunk(b);
  if (!c.rows) c.rows = backend_.sparse(row_block_copy(layout_.a_hat, b).view());
  c.rows->multiply(x, out);
}

kernels::SparseMatrix& BlockRows::transposed_whole() {
  if (!a_hat_transposed_) a_hat_transposed_ = backend_.sparse(transpose(layout_.a_hat).view());
  return *a_hat_transposed_;
}

void BlockRows::scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) {
  if (whole(b)) {
    transposed_whole().multiply(grad, g, 1.0f);
    return;
  }
  Chunk& c = chunk(b);
  if (!c.transposed) {
    std::vector<LocalId> touched;
    c.transposed = backend_.sparse(transposed_block(layout_.a_hat, b, touched).view());
    c.touched = kernels::to_backend<LocalId>(backend_, touched);
    c.touched_count = static_cast<std::int64_t>(touched.size());
  }
  const auto bytes = static_cast<std::size_t>(c.touched_count * grad.cols) * sizeof(float);
  if (scratch_.bytes() < bytes) scratch_ = kernels::Buffer(backend_, bytes);
  const MatrixView touched{scratch_.as<float>(), c.touched_count, grad.cols, grad.cols};
  c.transposed->multiply(grad, touched);
  backend_.scatter_rows(touched.data, c.touched.as<LocalId>(), c.touched_count, g, true);
}

void BlockRows::transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) {
  if (whole(b)) {
    transposed_whole().multiply(grad, out);
    return;
  }
  STRATA_CHECK(out.stride == out.cols, "transpose_multiply into a strided view");
  backend_.zero(out.data, static_cast<std::size_t>(out.rows * out.cols) * sizeof(float));
  scatter_gradient(b, grad, out);
}

void BlockRows::exchange(const Block& b, MatrixView x, bool training) {
  if (halo_) halo_->forward(b, x, training);
}

void BlockRows::exchange_gradient(const Block& b, MatrixView g) {
  if (halo_) halo_->backward(b, g);
}

}  // namespace strata
