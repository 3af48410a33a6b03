// A stage's input features in a backend's memory, dense or sparse (sparse input stays
// sparse on the device: X and Xᵀ in CSR), with the pass's input dropout (mask layer 0, the
// same mask for both) applied to a copy, so the raw features never change.
#pragma once
#include <cstdint>
#include <memory>

#include "strata/kernels/backend.h"

namespace strata {

class Features {
 public:
  Features(const kernels::Backend& backend, ConstMatrixView dense);
  Features(const kernels::Backend& backend, CsrView sparse);  // with values

  std::int64_t rows() const;
  std::int64_t cols() const;
  bool is_sparse() const { return sparse_ != nullptr; }

  // This pass's X: under input dropout p keyed by row_ids (rows() global ids in backend
  // memory), or the raw features when p = 0. Every call below reads this pass's X.
  void drop(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch);
  // y = X · w, and sums += Xᵀ · g.
  void multiply(ConstMatrixView w, MatrixView y);
  void accumulate_transposed(ConstMatrixView g, kernels::GradientSums sums);
  // out = X, dense (sparse X is expanded into out itself).
  void copy_to(MatrixView out);

 private:
  ConstMatrixView dense() const;

  const kernels::Backend& backend_;
  kernels::Tensor raw_, dropped_;  // dense input, and its dropped copy
  bool dropping_ = false;
  std::unique_ptr<kernels::SparseFeatureMatrix> sparse_;
};

}  // namespace strata
