#include "strata/kernels/sparse_features.h"

#include <algorithm>

#include "strata/kernels/kernels.h"

namespace strata {

Csr transpose_with_source(CsrView x, std::vector<EdgeOffset>& source) {
  Csr t;
  t.rows = x.cols;
  t.cols = x.rows;
  t.offsets.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  for (EdgeOffset k = 0; k < x.nnz(); ++k) ++t.offsets[x.indices[k] + 1];
  for (LocalId r = 0; r < t.rows; ++r) t.offsets[r + 1] += t.offsets[r];
  t.indices.resize(static_cast<std::size_t>(x.nnz()));
  t.values.resize(t.indices.size());
  source.resize(t.indices.size());
  std::vector<EdgeOffset> cursor(t.offsets.begin(), t.offsets.end() - 1);
  for (LocalId r = 0; r < x.rows; ++r) {
    for (EdgeOffset k = x.offsets[r]; k < x.offsets[r + 1]; ++k) {
      const EdgeOffset pos = cursor[x.indices[k]]++;
      t.indices[pos] = r;
      source[pos] = k;
    }
  }
  return t;
}

SparseFeatures::SparseFeatures(CsrView x) : x_(x) {
  STRATA_CHECK(x.values != nullptr || x.nnz() == 0, "SparseFeatures: x has no values");
  std::vector<EdgeOffset> source;
  transposed_ = transpose_with_source(x_, source);
  values_.resize(static_cast<std::size_t>(x.nnz()));
  raw_transposed_.resize(source.size());
  for (std::size_t k = 0; k < source.size(); ++k) raw_transposed_[k] = x_.values[source[k]];
}

CsrView SparseFeatures::view() const {
  CsrView v = x_;
  if (!raw_) v.values = values_.data();
  return v;
}

CsrView SparseFeatures::transposed_view() const {
  CsrView v = transposed_.view();
  if (raw_) v.values = raw_transposed_.data();
  return v;
}

void SparseFeatures::reset() {
  raw_ = true;
}

void SparseFeatures::dropout(std::span<const GlobalId> row_ids, float p, std::uint64_t seed,
                             std::int64_t epoch, std::int32_t layer) {
  raw_ = p == 0.0f;
  if (raw_) return;
  std::copy(x_.values, x_.values + x_.nnz(), values_.begin());
  kernels::dropout_csr(x_, values_, row_ids, p, seed, epoch, layer);
  CsrView raw_t = transposed_.view();
  raw_t.values = raw_transposed_.data();
  kernels::dropout_csr_transposed(raw_t, transposed_.values, row_ids, p, seed, epoch, layer);
}

void SparseFeatures::to_dense(MatrixView out) const {
  STRATA_CHECK(out.rows == rows() && out.cols == cols(), "SparseFeatures::to_dense: out is ",
               out.rows, "x", out.cols);
  kernels::zero(out);
  const float* values = view().values;
  for (LocalId r = 0; r < x_.rows; ++r)
    for (EdgeOffset k = x_.offsets[r]; k < x_.offsets[r + 1]; ++k)
      out.at(r, x_.indices[k]) = values[k];
}

}  // namespace strata
