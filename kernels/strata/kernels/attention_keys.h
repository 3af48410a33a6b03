// The attention dropout's mask (attention.h), shared by the CPU and CUDA kernels: nvcc
// compiles this header as C++17, so it holds plain integer arithmetic only.
#pragma once
#include <cstdint>

#include "strata/core/random.h"

namespace strata::kernels {

// hash_key(seed, epoch, layer): what every row's key starts from.
inline STRATA_HOST_DEVICE std::uint64_t attention_base_key(std::uint64_t seed, std::int64_t epoch,
                                                           std::int32_t layer) {
  return hash_key(hash_key(seed, static_cast<std::uint64_t>(epoch)),
                  static_cast<std::uint64_t>(layer));
}

// An entry's key from its row's (both global ids): the kernels hash a row once, an entry
// once, then one hash per head.
inline STRATA_HOST_DEVICE std::uint64_t attention_row_key(std::uint64_t base, std::int64_t row) {
  return hash_key(base, static_cast<std::uint64_t>(row));
}
inline STRATA_HOST_DEVICE std::uint64_t attention_entry_key(std::uint64_t row_key,
                                                            std::int64_t column) {
  return hash_key(row_key, static_cast<std::uint64_t>(column));
}
// Whether the entry keeps head `head`: 24 bits of its hash against ceil(p · 2^24), as the
// dense dropout tests them (dropout_keys.h).
inline STRATA_HOST_DEVICE bool attention_head_kept(std::uint64_t entry_key, int head,
                                                   std::uint32_t threshold) {
  return static_cast<std::uint32_t>(splitmix64(entry_key + static_cast<std::uint64_t>(head)) >>
                                    40) >= threshold;
}
inline STRATA_HOST_DEVICE bool attention_kept(std::uint64_t base, std::int64_t row,
                                              std::int64_t column, int head,
                                              std::uint32_t threshold) {
  return attention_head_kept(attention_entry_key(attention_row_key(base, row), column), head,
                             threshold);
}

}  // namespace strata::kernels
