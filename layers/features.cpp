#include "strata/layers/features.h"

#include <algorithm>
#include <utility>

#include "strata/core/error.h"

namespace strata {

Features::Features(const kernels::Backend& backend, ConstMatrixView dense) : backend_(backend) {
  if (backend.host_memory()) {
    raw_ = dense;
    return;
  }
  owned_ = kernels::to_backend(backend, dense);
  raw_ = std::as_const(owned_).view();
}

Features::Features(const kernels::Backend& backend, ConstMatrixView dense,
                   std::vector<LocalId> order)
    : backend_(backend) {
  for (const LocalId id : order)
    STRATA_CHECK(id >= 0 && id < dense.rows, "feature row ", id, " outside [0, ", dense.rows, ")");
  if (backend.host_memory()) {
    raw_ = dense;
    order_ = std::move(order);
    return;
  }
  Matrix rows(static_cast<std::int64_t>(order.size()), dense.cols);
  for (std::int64_t r = 0; r < rows.rows(); ++r)
    std::copy_n(dense.row(order[static_cast<std::size_t>(r)]), dense.cols, rows.view().row(r));
  owned_ = kernels::to_backend(backend, std::as_const(rows).view());
  raw_ = std::as_const(owned_).view();
}

Features::Features(const kernels::Backend& backend, CsrView sparse)
    : backend_(backend), sparse_(backend.sparse_features(sparse)) {}

std::int64_t Features::rows() const {
  if (sparse_) return sparse_->rows();
  return order_.empty() ? raw_.rows : static_cast<std::int64_t>(order_.size());
}

std::int64_t Features::cols() const {
  return sparse_ ? sparse_->cols() : raw_.cols;
}

void Features::drop(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch) {
  if (sparse_) {
    if (p > 0.0f)
      sparse_->dropout(row_ids, p, seed, epoch, 0);
    else
      sparse_->reset();
    return;
  }
  dropout_ = {row_ids, p, seed, epoch};
  dropped_current_ = false;
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
  if (sparse_) {
    sparse_->to_dense(out);
  } else if (dropped_current_) {
    backend_.copy(dropped_.view(), out);
  } else {
    gather(out);
    apply_dropout(out);
  }
}

void Features::gather(MatrixView out) const {
  if (order_.empty()) return backend_.copy(raw_, out);
  STRATA_CHECK(out.stride == out.cols && out.rows == rows(), "gathered features: ", out.rows, " x ",
               out.cols, " rows of stride ", out.stride, " for ", rows(), " rows");
  backend_.gather_rows(raw_, order_.data(), out.rows, out.data);
}

// A row order gathers into the copy even without dropout.
ConstMatrixView Features::dense() {
  if (dropout_.p <= 0.0f && order_.empty()) return raw_;
  if (!dropped_current_) {
    kernels::shaped(backend_, dropped_, rows(), raw_.cols);
    gather(dropped_.view());
    apply_dropout(dropped_.view());
    dropped_current_ = true;
  }
  return std::as_const(dropped_).view();
}

void Features::apply_dropout(MatrixView x) const {
  if (dropout_.p > 0.0f)
    backend_.dropout(x, dropout_.row_ids, dropout_.p, dropout_.seed, dropout_.epoch, 0);
}

}  // namespace strata
