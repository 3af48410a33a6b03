// Inverted dropout on the stored values of a CSR matrix. The mask is drawn exactly as
// dropout() draws it for a dense matrix, so a sparse and a dense copy of the same input
// see bitwise the same dropped values (absent entries are zero either way).
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

}  // namespace

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

}  // namespace strata::kernels
