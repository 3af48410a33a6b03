// Sparse input features as the first GCN layer uses them: X (N x F, CSR) for X·W and
// its transpose Xᵀ for dW = Xᵀ·dY, built once. Dropout draws the dense path's mask on
// both and keeps only the entries it did not drop (a copy of each without the zeros), so
// the products skip the dropped entries; going back to the raw values (evaluation)
// copies nothing. The caller's matrix is never touched.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/graph/csr.h"

namespace strata {

// x's transpose (pattern only, values zero); source[k] = the entry of x that became entry
// k of the transpose (counting sort, so each row of the transpose is in x's row order).
Csr transpose_with_source(CsrView x, std::vector<EdgeOffset>& source);

class SparseFeatures {
 public:
  // x (with values) must outlive this object: it is read in place; Xᵀ and the dropped
  // copies are this object's.
  explicit SparseFeatures(CsrView x);

  std::int64_t rows() const { return x_.rows; }
  std::int64_t cols() const { return x_.cols; }
  // X and Xᵀ with the current values: raw, or those the last dropout() kept (dropped
  // entries absent, not zero).
  CsrView view() const;
  CsrView transposed_view() const;

  // Back to the raw values (the views read them in place).
  void reset();
  // Current values = kernels::dropout_csr(raw values), or the raw ones where p is 0; see
  // kernels.h for the mask.
  void dropout(std::span<const GlobalId> row_ids, float p, std::uint64_t seed, std::int64_t epoch,
               std::int32_t layer);
  // out (rows x cols) = X with the current values.
  void to_dense(MatrixView out) const;

 private:
  CsrView x_;                   // caller's pattern and raw values
  Csr transposed_;              // Xᵀ with the raw values
  Csr dropped_;                 // X's entries the last dropout kept, dropped values
  Csr dropped_transposed_;      // the same of Xᵀ
  std::vector<float> scratch_;  // a dropout's values, dropped ones zero, before compaction
  bool raw_ = true;             // the views are X and Xᵀ as given
};

}  // namespace strata
