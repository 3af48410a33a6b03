// Shared by the dense and sparse dropout kernels. The mask bit of (row, column c) comes
// from one 64-bit hash per pair of columns, h = splitmix64(row_key ^ splitmix64(c / 2)):
// even columns read its top 24 bits, odd ones the next 24. Both kernels draw through
// these functions, so a dense and a sparse copy of a matrix lose the same entries.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "strata/core/random.h"
#include "strata/core/types.h"

namespace strata::kernels {

// splitmix64(c / 2) for every column pair of a matrix with `cols` columns.
std::vector<std::uint64_t> dropout_column_keys(std::int64_t cols);

// The 24 random bits of this column, from its pair's hash: bits 40-63 for an even column,
// 16-39 for an odd one, picked by a shift rather than a branch so that loops over
// arbitrary columns (sparse rows) vectorize.
inline std::uint32_t column_bits(std::uint64_t h, std::int64_t column) {
  return static_cast<std::uint32_t>((h >> (40 - 24 * (column & 1))) & 0xFFFFFFull);
}

// An entry is dropped when bits · 2^-24 < p, that is when bits < ceil(p · 2^24) (exact:
// p · 2^24 is exact in double), so the test needs no float conversion.
inline std::uint32_t drop_threshold(float p) {
  return static_cast<std::uint32_t>(std::ceil(static_cast<double>(p) * 16777216.0));
}

// x · keep_scale where kept, +0 where dropped, with a bit mask instead of a branch: the
// branch depends on random bits and mispredicted about half the time (it made dropout
// a third of a 4-layer GCN's epoch).
inline float keep_or_zero(float x, float keep_scale, std::uint32_t bits, std::uint32_t threshold) {
  const std::uint32_t keep = 0u - static_cast<std::uint32_t>(bits >= threshold);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x * keep_scale) & keep);
}

// dropout()'s constants for one call, applied a row at a time (elementwise.cpp): the
// whole-matrix kernels and the fused layer passes draw the same masks through it.
class RowDropout {
 public:
  RowDropout(float p, std::uint64_t seed, std::int64_t epoch, std::int32_t layer,
             std::int64_t cols);
  // dst = the row src of the vertex `id`, dropped; src may be dst. With p = 0, a copy.
  void apply(const float* src, float* dst, GlobalId id) const;
  // The n stored values of a sparse row of vertex `id`, in its columns, dropped in place
  // (sparse_dropout.cpp).
  void apply_sparse(const LocalId* columns, float* values, std::int64_t n, GlobalId id) const;
  // The same masks read down one column: dst[k] = src[k], the entry of that column in the
  // row rows[k] (whose row_key is row_keys[rows[k]]), dropped (sparse_dropout.cpp).
  void apply_sparse_column(std::int64_t column, const LocalId* rows, const std::uint64_t* row_keys,
                           const float* src, float* dst, std::int64_t n) const;
  // The key of the vertex `id`'s row, shared by every column of it.
  std::uint64_t row_key(GlobalId id) const {
    return hash_key(base_, static_cast<std::uint64_t>(id));
  }

 private:
  float p_, keep_scale_;
  std::uint32_t threshold_;
  std::uint64_t base_;
  std::int64_t cols_;
  std::vector<std::uint64_t> column_keys_;
};

}  // namespace strata::kernels
