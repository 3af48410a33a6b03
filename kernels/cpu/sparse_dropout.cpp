// Inverted dropout on the stored values of a CSR matrix. The mask is drawn exactly as
// dropout() draws it for a dense matrix, so a sparse and a dense copy of the same input
// see bitwise the same dropped values (absent entries are zero either way).
#include "dropout_keys.h"
#include "strata/core/random.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {

void dropout_csr(CsrView a, std::span<float> values, std::span<const GlobalId> row_ids, float p,
                 std::uint64_t seed, std::int64_t epoch, std::int32_t layer) {
  STRATA_CHECK(static_cast<std::int64_t>(row_ids.size()) == a.rows, "dropout_csr: ", row_ids.size(),
               " row ids for ", a.rows, " rows");
  STRATA_CHECK(static_cast<EdgeOffset>(values.size()) == a.nnz(), "dropout_csr: ", values.size(),
               " values for ", a.nnz(), " entries");
  STRATA_CHECK(p >= 0.0f && p < 1.0f, "dropout_csr: p = ", p);
  if (p == 0.0f) return;
  const float keep_scale = 1.0f / (1.0f - p);
  const std::uint32_t threshold = drop_threshold(p);
  const std::uint64_t base =
      hash_key(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(layer));
  const std::vector<std::uint64_t> column_keys = dropout_column_keys(a.cols);
#pragma omp parallel for schedule(dynamic, 256)
  for (LocalId r = 0; r < a.rows; ++r) {
    const std::uint64_t row_key = hash_key(base, static_cast<std::uint64_t>(row_ids[r]));
    for (EdgeOffset k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      const std::int64_t column = a.indices[k];
      const std::uint32_t bits = column_bits(pair_hash(row_key, column_keys, column), column);
      values[k] = keep_or_zero(values[k], keep_scale, bits, threshold);
    }
  }
}

}  // namespace strata::kernels
