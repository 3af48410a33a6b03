// Shared by the dense and sparse dropout kernels. The mask bit of (row, column c) comes
// from one 64-bit hash per pair of columns, h = splitmix64(row_key ^ splitmix64(c / 2)):
// even columns read its top 24 bits, odd ones the next 24. Both kernels draw through
// these functions, so a dense and a sparse copy of a matrix lose the same entries.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/random.h"

namespace strata::kernels {

// splitmix64(c / 2) for every column pair of a matrix with `cols` columns.
std::vector<std::uint64_t> dropout_column_keys(std::int64_t cols);

inline std::uint64_t pair_hash(std::uint64_t row_key, const std::vector<std::uint64_t>& pair_keys,
                               std::int64_t column) {
  return splitmix64(row_key ^ pair_keys[static_cast<std::size_t>(column >> 1)]);
}

// Whether the column with this parity is dropped, from its pair's hash.
inline bool dropped(std::uint64_t h, std::int64_t column, float p) {
  const std::uint64_t bits = (column & 1) ? (h >> 16) & 0xFFFFFFull : h >> 40;
  return static_cast<float>(bits) * (1.0f / 16777216.0f) < p;
}

}  // namespace strata::kernels
