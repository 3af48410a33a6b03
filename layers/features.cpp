#include "strata/layers/features.h"

namespace strata {

Features::Features(const kernels::Backend& backend, ConstMatrixView dense)
    : backend_(backend), raw_(kernels::to_backend(backend, dense)) {}

Features::Features(const kernels::Backend& backend, CsrView sparse)
    : backend_(backend), sparse_(backend.sparse_features(sparse)) {}

std::int64_t Features::rows() const {
  return sparse_ ? sparse_->rows() : raw_.rows();
}

std::int64_t Features::cols() const {
  return sparse_ ? sparse_->cols() : raw_.cols();
}

void Features::drop(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch) {
  if (sparse_) {
    if (p > 0.0f)
      sparse_->dropout(row_ids, p, seed, epoch, 0);
    else
      sparse_->reset();
    return;
  }
  dropping_ = p > 0.0f;
  if (!dropping_) return;
  kernels::shaped(backend_, dropped_, raw_.rows(), raw_.cols());
  backend_.copy(raw_.view(), dropped_.view());
  backend_.dropout(dropped_.view(), row_ids, p, seed, epoch, 0);
}

void Features::multiply(ConstMatrixView w, MatrixView y) {
  if (sparse_)
    sparse_->multiply(w, y);
  else
    backend_.gemm(false, false, 1.0f, dense(), w, 0.0f, y);
}

void Features::accumulate_transposed(ConstMatrixView g, kernels::GradientSums sums) {
  if (sparse_)
    sparse_->accumulate_transposed(g, sums);
  else
    backend_.gemm_tn_accumulate(1.0f, dense(), g, sums);
}

void Features::copy_to(MatrixView out) {
  if (sparse_)
    sparse_->to_dense(out);
  else
    backend_.copy(dense(), out);
}

ConstMatrixView Features::dense() const {
  return dropping_ ? dropped_.view() : raw_.view();
}

}  // namespace strata
