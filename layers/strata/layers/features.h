// A stage's input features in a backend's memory, dense or sparse (sparse input stays
// sparse on the device: X and Xᵀ in CSR), with the pass's input dropout (mask layer 0, the
// same mask for both), so the raw features never change. Dense features on a backend that
// shares host memory are read where they are (they must outlive this), also where the
// stage's rows are another order or a subset of the array's (read through a row list), and
// a dropped copy is made only for the products that need one: copy_to drops its own output.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/kernels/backend.h"

namespace strata {

class Features {
 public:
  Features(const kernels::Backend& backend, ConstMatrixView dense);
  // Row r is dense row order[r] (ids below dense.rows).
  Features(const kernels::Backend& backend, ConstMatrixView dense, std::vector<LocalId> order);
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
  struct Dropout {
    const GlobalId* row_ids = nullptr;
    float p = 0.0f;
    std::uint64_t seed = 0;
    std::int64_t epoch = 0;
  };
  ConstMatrixView dense();  // this pass's dense X, dropped into a copy on first use
  void apply_dropout(MatrixView x) const;

  const kernels::Backend& backend_;
  // out = the stage's rows of raw_ (its order's, where it has one); out is contiguous.
  void gather(MatrixView out) const;

  ConstMatrixView raw_;         // dense input: the caller's array, or owned_'s
  std::vector<LocalId> order_;  // host backend: row r of the stage is raw_'s order_[r]
  kernels::Tensor owned_;       // dense input copied to a backend of its own memory
  kernels::Tensor dropped_;
  Dropout dropout_;
  bool dropped_current_ = false;  // dropped_ holds this pass's X
  std::unique_ptr<kernels::SparseFeatureMatrix> sparse_;
};

}  // namespace strata
