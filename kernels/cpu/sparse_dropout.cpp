// Inverted dropout on the stored values of a CSR matrix. The mask is drawn exactly as
// dropout() draws it for a dense matrix, so a sparse and a dense copy of the same input
// see bitwise the same dropped values (absent entries are zero either way).
#include <algorithm>
#include <vector>

#include "dropout_keys.h"
#include "strata/core/random.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

// One row's entries: a gather of the pair keys and 64-bit multiplies, which vectorize
// where AVX-512 has them (column_bits takes no branch).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void dropout_csr_row(
    const LocalId* columns, float* values, std::int64_t n, std::uint64_t row_key,
    const std::uint64_t* pair_keys, float keep_scale, std::uint32_t threshold) {
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t column = columns[k];
    const std::uint64_t h = splitmix64(row_key ^ pair_keys[column >> 1]);
    values[k] = keep_or_zero(values[k], keep_scale, column_bits(h, column), threshold);
  }
}

// One column's entries: the pair key is the column's, the row keys are gathered.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void dropout_csr_column(
    const LocalId* rows, const std::uint64_t* row_keys, const float* src, float* dst,
    std::int64_t n, std::int64_t column, std::uint64_t pair_key, float keep_scale,
    std::uint32_t threshold) {
  for (std::int64_t k = 0; k < n; ++k) {
    const std::uint64_t h = splitmix64(row_keys[rows[k]] ^ pair_key);
    dst[k] = keep_or_zero(src[k], keep_scale, column_bits(h, column), threshold);
  }
}

}  // namespace

void RowDropout::apply_sparse_column(std::int64_t column, const LocalId* rows,
                                     const std::uint64_t* row_keys, const float* src, float* dst,
                                     std::int64_t n) const {
  if (p_ == 0.0f) {
    std::copy(src, src + n, dst);
    return;
  }
  dropout_csr_column(rows, row_keys, src, dst, n, column, column_keys_[column >> 1], keep_scale_,
                     threshold_);
}

void RowDropout::apply_sparse(const LocalId* columns, float* values, std::int64_t n,
                              GlobalId id) const {
  if (p_ == 0.0f) return;
  dropout_csr_row(columns, values, n, row_key(id), column_keys_.data(), keep_scale_, threshold_);
}

void dropout_csr(CsrView a, std::span<float> values, std::span<const GlobalId> row_ids, float p,
                 std::uint64_t seed, std::int64_t epoch, std::int32_t layer) {
  STRATA_CHECK(static_cast<std::int64_t>(row_ids.size()) == a.rows, "dropout_csr: ", row_ids.size(),
               " row ids for ", a.rows, " rows");
  STRATA_CHECK(static_cast<EdgeOffset>(values.size()) == a.nnz(), "dropout_csr: ", values.size(),
               " values for ", a.nnz(), " entries");
  STRATA_CHECK(p >= 0.0f && p < 1.0f, "dropout_csr: p = ", p);
  if (p == 0.0f) return;
  const RowDropout drop(p, seed, epoch, layer, a.cols);
#pragma omp parallel for schedule(dynamic, 256)
  for (LocalId r = 0; r < a.rows; ++r) {
    const EdgeOffset begin = a.offsets[r];
    drop.apply_sparse(a.indices + begin, values.data() + begin, a.offsets[r + 1] - begin,
                      row_ids[r]);
  }
}

void dropout_csr_transposed(CsrView t, std::span<float> values, std::span<const GlobalId> row_ids,
                            float p, std::uint64_t seed, std::int64_t epoch, std::int32_t layer) {
  STRATA_CHECK(static_cast<std::int64_t>(row_ids.size()) == t.cols,
               "dropout_csr_transposed: ", row_ids.size(), " row ids for ", t.cols, " columns");
  STRATA_CHECK(static_cast<EdgeOffset>(values.size()) == t.nnz() && (t.values || t.nnz() == 0),
               "dropout_csr_transposed: ", values.size(), " values for ", t.nnz(), " entries");
  const RowDropout drop(p, seed, epoch, layer, t.rows);
  std::vector<std::uint64_t> row_keys(row_ids.size());
  for (std::size_t r = 0; r < row_ids.size(); ++r) row_keys[r] = drop.row_key(row_ids[r]);
#pragma omp parallel for schedule(dynamic, 64)
  for (LocalId c = 0; c < t.rows; ++c) {
    const EdgeOffset begin = t.offsets[c];
    drop.apply_sparse_column(c, t.indices + begin, row_keys.data(), t.values + begin,
                             values.data() + begin, t.offsets[c + 1] - begin);
  }
}

}  // namespace strata::kernels
