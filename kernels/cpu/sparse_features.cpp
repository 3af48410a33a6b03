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

namespace {

// out = the entries of `pattern` whose value in `values` is not zero, in order: a product
// over them adds what one over every entry adds (a zero times a finite value adds zero)
// without gathering the rows the dropped entries name. Reuses out's storage.
void compact_nonzeros(CsrView pattern, const float* values, Csr& out) {
  out.rows = pattern.rows;
  out.cols = pattern.cols;
  out.offsets.resize(static_cast<std::size_t>(pattern.rows) + 1);
  out.offsets[0] = 0;
#pragma omp parallel for schedule(dynamic, 256)
  for (LocalId r = 0; r < pattern.rows; ++r) {
    EdgeOffset kept = 0;
    for (EdgeOffset k = pattern.offsets[r]; k < pattern.offsets[r + 1]; ++k)
      kept += values[k] != 0.0f;
    out.offsets[r + 1] = kept;
  }
  for (LocalId r = 0; r < pattern.rows; ++r) out.offsets[r + 1] += out.offsets[r];
  out.indices.resize(static_cast<std::size_t>(out.offsets.back()));
  out.values.resize(out.indices.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (LocalId r = 0; r < pattern.rows; ++r) {
    // Each entry is written and kept by advancing or not (the choice is random: a branch on
    // it mispredicts half the time). While the row's kept entries are not all written, an
    // unkept write lands on the slot the next kept one takes; then the row stops.
    const EdgeOffset stop = out.offsets[r + 1];
    EdgeOffset to = out.offsets[r];
    for (EdgeOffset k = pattern.offsets[r]; k < pattern.offsets[r + 1] && to < stop; ++k) {
      out.indices[to] = pattern.indices[k];
      out.values[to] = values[k];
      to += values[k] != 0.0f;
    }
  }
}

}  // namespace

SparseFeatures::SparseFeatures(CsrView x) : x_(x) {
  STRATA_CHECK(x.values != nullptr || x.nnz() == 0, "SparseFeatures: x has no values");
  std::vector<EdgeOffset> source;
  transposed_ = transpose_with_source(x_, source);
  for (std::size_t k = 0; k < source.size(); ++k) transposed_.values[k] = x_.values[source[k]];
}

CsrView SparseFeatures::view() const {
  return raw_ ? x_ : dropped_.view();
}

CsrView SparseFeatures::transposed_view() const {
  return raw_ ? transposed_.view() : dropped_transposed_.view();
}

void SparseFeatures::reset() {
  raw_ = true;
}

void SparseFeatures::dropout(std::span<const GlobalId> row_ids, float p, std::uint64_t seed,
                             std::int64_t epoch, std::int32_t layer) {
  raw_ = p == 0.0f;
  if (raw_) return;
  scratch_.assign(x_.values, x_.values + x_.nnz());
  kernels::dropout_csr(x_, scratch_, row_ids, p, seed, epoch, layer);
  compact_nonzeros(x_, scratch_.data(), dropped_);
  kernels::dropout_csr_transposed(transposed_.view(), scratch_, row_ids, p, seed, epoch, layer);
  compact_nonzeros(transposed_.view(), scratch_.data(), dropped_transposed_);
}

void SparseFeatures::to_dense(MatrixView out) const {
  STRATA_CHECK(out.rows == rows() && out.cols == cols(), "SparseFeatures::to_dense: out is ",
               out.rows, "x", out.cols);
  kernels::zero(out);
  const CsrView x = view();
  for (LocalId r = 0; r < x.rows; ++r)
    for (EdgeOffset k = x.offsets[r]; k < x.offsets[r + 1]; ++k)
      out.at(r, x.indices[k]) = x.values[k];
}

}  // namespace strata
