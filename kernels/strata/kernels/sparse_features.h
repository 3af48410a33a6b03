// Sparse input features as the first GCN layer uses them: X (N x F, CSR) for X·W and
// its transpose Xᵀ for dW = Xᵀ·dY, built once. Dropout writes dropped values of both
// (same mask as the dense path) beside the raw ones, so going back to the raw values
// (evaluation) copies nothing; the caller's matrix is never touched.
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
  // x (with values) must outlive this object: its offsets, indices and values are read
  // in place; only the values are copied (they change under dropout).
  explicit SparseFeatures(CsrView x);

  std::int64_t rows() const { return x_.rows; }
  std::int64_t cols() const { return x_.cols; }
  // X and Xᵀ with the current values (raw, or dropped by the last dropout()).
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
  CsrView x_;                          // caller's pattern and raw values
  std::vector<float> values_;          // X's dropped values
  Csr transposed_;                     // Xᵀ pattern and dropped values
  std::vector<float> raw_transposed_;  // Xᵀ's raw values
  bool raw_ = true;                    // the views read the raw values
};

}  // namespace strata
