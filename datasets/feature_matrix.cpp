#include "strata/datasets/feature_matrix.h"

#include <algorithm>
#include <cstring>

namespace strata {
namespace {

std::int64_t count_nonzeros(const Matrix& m) {
  return static_cast<std::int64_t>(m.storage().size()) -
         std::count(m.storage().begin(), m.storage().end(), 0.0f);
}

void check_ids(std::span<const GlobalId> ids, std::int64_t rows) {
  for (GlobalId id : ids)
    STRATA_CHECK(id >= 0 && id < rows, "select_rows: row ", id, " outside [0, ", rows, ")");
}

Matrix select_dense(const Matrix& m, std::span<const GlobalId> ids) {
  Matrix out(static_cast<std::int64_t>(ids.size()), m.cols());
  const auto bytes = static_cast<std::size_t>(m.cols()) * sizeof(float);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (bytes > 0) std::memcpy(out.row(static_cast<std::int64_t>(i)), m.row(ids[i]), bytes);
  return out;
}

Csr select_sparse(const Csr& a, std::span<const GlobalId> ids) {
  Csr out;
  out.rows = static_cast<LocalId>(ids.size());
  out.cols = a.cols;
  out.offsets.reserve(ids.size() + 1);
  for (GlobalId id : ids)
    out.offsets.push_back(out.offsets.back() + a.degree(static_cast<LocalId>(id)));
  out.indices.resize(static_cast<std::size_t>(out.offsets.back()));
  out.values.resize(out.indices.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const EdgeOffset begin = a.offsets[ids[i]], end = a.offsets[ids[i] + 1];
    std::copy(a.indices.begin() + begin, a.indices.begin() + end,
              out.indices.begin() + out.offsets[i]);
    std::copy(a.values.begin() + begin, a.values.begin() + end,
              out.values.begin() + out.offsets[i]);
  }
  return out;
}

}  // namespace

FeatureMatrix::FeatureMatrix(Csr sparse) : sparse_(std::move(sparse)), sparse_flag_(true) {
  STRATA_CHECK(sparse_.values.size() == sparse_.indices.size(),
               "FeatureMatrix: ", sparse_.values.size(), " values for ", sparse_.indices.size(),
               " indices");
}

std::int64_t FeatureMatrix::nnz() const {
  if (released_) return released_->nnz;
  return sparse_flag_ ? sparse_.nnz() : count_nonzeros(dense_);
}

FeatureMatrix FeatureMatrix::without_values() const {
  FeatureMatrix m;
  m.sparse_flag_ = sparse_flag_;
  m.released_ = Shape{rows(), cols(), nnz()};
  return m;
}

FeatureMatrix FeatureMatrix::keeping_rows(std::span<const GlobalId> held) const {
  for (std::size_t i = 1; i < held.size(); ++i)
    STRATA_CHECK(held[i - 1] < held[i], "keeping_rows: row ", held[i], " after ", held[i - 1]);
  FeatureMatrix m = without_values();
  m.held_ = std::make_shared<const FeatureMatrix>(select_rows(held));
  m.held_ids_.assign(held.begin(), held.end());
  return m;
}

const FeatureMatrix& FeatureMatrix::held_values() const {
  STRATA_CHECK(held_ != nullptr, "FeatureMatrix::held_values: every row or none is kept");
  return *held_;
}

void FeatureMatrix::check_values() const {
  if (!released_) return;
  STRATA_CHECK(held_ == nullptr, "only ", held_ids_.size(), " of the features' ", released_->rows,
               " rows are kept on this rank (held_values)");
  STRATA_CHECK(false, "the features' values were released on this rank (", released_->rows, " x ",
               released_->cols, "): it never reads them");
}

double FeatureMatrix::density() const {
  const double total = static_cast<double>(rows()) * static_cast<double>(cols());
  return total == 0 ? 0.0 : static_cast<double>(nnz()) / total;
}

const Matrix& FeatureMatrix::dense() const {
  check_values();
  STRATA_CHECK(!sparse_flag_, "FeatureMatrix::dense on sparse features");
  return dense_;
}

Matrix& FeatureMatrix::dense() {
  check_values();
  STRATA_CHECK(!sparse_flag_, "FeatureMatrix::dense on sparse features");
  return dense_;
}

const Csr& FeatureMatrix::sparse() const {
  check_values();
  STRATA_CHECK(sparse_flag_, "FeatureMatrix::sparse on dense features");
  return sparse_;
}

Csr& FeatureMatrix::sparse() {
  check_values();
  STRATA_CHECK(sparse_flag_, "FeatureMatrix::sparse on dense features");
  return sparse_;
}

float FeatureMatrix::at(std::int64_t r, std::int64_t c) const {
  check_values();
  if (!sparse_flag_) return dense_.at(r, c);
  for (EdgeOffset k = sparse_.offsets[r]; k < sparse_.offsets[r + 1]; ++k)
    if (sparse_.indices[k] == c) return sparse_.values[k];
  return 0.0f;
}

Matrix FeatureMatrix::to_dense() const {
  check_values();
  if (!sparse_flag_) return dense_;
  Matrix out(rows(), cols());
  for (LocalId r = 0; r < sparse_.rows; ++r)
    for (EdgeOffset k = sparse_.offsets[r]; k < sparse_.offsets[r + 1]; ++k)
      out.at(r, sparse_.indices[k]) = sparse_.values[k];
  return out;
}

FeatureMatrix FeatureMatrix::select_rows(std::span<const GlobalId> ids) const {
  check_values();
  check_ids(ids, rows());
  if (sparse_flag_) return FeatureMatrix(select_sparse(sparse_, ids));
  return FeatureMatrix(select_dense(dense_, ids));
}

bool FeatureMatrix::operator==(const FeatureMatrix& o) const {
  check_values();
  o.check_values();
  if (sparse_flag_ != o.sparse_flag_ || rows() != o.rows() || cols() != o.cols()) return false;
  if (!sparse_flag_) return dense_.storage() == o.dense_.storage();
  return sparse_.offsets == o.sparse_.offsets && sparse_.indices == o.sparse_.indices &&
         sparse_.values == o.sparse_.values;
}

Csr to_csr(const Matrix& dense) {
  Csr out;
  out.rows = static_cast<LocalId>(dense.rows());
  out.cols = static_cast<LocalId>(dense.cols());
  out.offsets.reserve(static_cast<std::size_t>(dense.rows()) + 1);
  for (std::int64_t r = 0; r < dense.rows(); ++r) {
    const float* row = dense.row(r);
    for (std::int64_t c = 0; c < dense.cols(); ++c) {
      if (row[c] == 0.0f) continue;
      out.indices.push_back(static_cast<LocalId>(c));
      out.values.push_back(row[c]);
    }
    out.offsets.push_back(static_cast<EdgeOffset>(out.indices.size()));
  }
  return out;
}

FeatureMatrix choose_storage(Csr sparse, double max_density) {
  FeatureMatrix m(std::move(sparse));
  if (m.density() < max_density) return m;
  return FeatureMatrix(m.to_dense());
}

FeatureMatrix choose_storage(Matrix dense, double max_density) {
  FeatureMatrix m(std::move(dense));
  if (m.density() >= max_density) return m;
  return FeatureMatrix(to_csr(m.dense()));
}

}  // namespace strata
