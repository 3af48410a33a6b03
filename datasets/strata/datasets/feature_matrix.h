// Input features: an N x F matrix stored dense (row-major Matrix) or sparse (CSR with
// values). Bag-of-words features are mostly zeros; readers pick sparse below a density.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/core/types.h"
#include "strata/graph/csr.h"

namespace strata {

// Readers store features sparse when fewer than this fraction of entries are non-zero.
constexpr double kSparseFeatureDensity = 0.25;

class FeatureMatrix {
 public:
  FeatureMatrix() = default;  // 0 x 0, dense
  explicit FeatureMatrix(Matrix dense) : dense_(std::move(dense)) {}
  // sparse.values must hold one value per index.
  explicit FeatureMatrix(Csr sparse);

  std::int64_t rows() const {
    return released_ ? released_->rows : sparse_flag_ ? sparse_.rows : dense_.rows();
  }
  std::int64_t cols() const {
    return released_ ? released_->cols : sparse_flag_ ? sparse_.cols : dense_.cols();
  }
  bool is_sparse() const { return sparse_flag_; }
  // Stored entries when sparse; non-zero entries when dense.
  std::int64_t nnz() const;
  double density() const;

  const Matrix& dense() const;
  Matrix& dense();
  const Csr& sparse() const;
  Csr& sparse();

  // Entry (r, c), zero where a sparse matrix stores nothing. For tests and small cases.
  float at(std::int64_t r, std::int64_t c) const;
  Matrix to_dense() const;
  // The rows ids[0], ids[1], ... in that order, stored the same way as this matrix.
  FeatureMatrix select_rows(std::span<const GlobalId> ids) const;
  // Same storage kind, shape and stored values.
  bool operator==(const FeatureMatrix& other) const;

  // The same shape, storage kind and entry count without the values: what a rank that never
  // reads the features keeps (a pipeline stage after the first), so that everything sized
  // from them comes out the same on every rank. Reading its values throws.
  FeatureMatrix without_values() const;
  bool has_values() const { return !released_; }
  // The same, keeping the values of rows `held` (ascending, each once) only: what a hybrid
  // rank of the first stage keeps, its part's rows. held_values() holds them in that order.
  FeatureMatrix keeping_rows(std::span<const GlobalId> held) const;
  bool holds_some_rows() const { return held_ != nullptr; }
  std::span<const GlobalId> held_ids() const { return held_ids_; }
  const FeatureMatrix& held_values() const;

 private:
  struct Shape {
    std::int64_t rows = 0, cols = 0, nnz = 0;
  };
  void check_values() const;

  Matrix dense_;
  Csr sparse_;
  bool sparse_flag_ = false;
  std::optional<Shape> released_;              // without_values()
  std::shared_ptr<const FeatureMatrix> held_;  // keeping_rows()
  std::vector<GlobalId> held_ids_;
};

// Sparse if the fraction of non-zeros is below max_density, else dense.
FeatureMatrix choose_storage(Csr sparse, double max_density = kSparseFeatureDensity);
FeatureMatrix choose_storage(Matrix dense, double max_density = kSparseFeatureDensity);

// The non-zeros of a dense matrix as CSR (columns ascending).
Csr to_csr(const Matrix& dense);

}  // namespace strata
