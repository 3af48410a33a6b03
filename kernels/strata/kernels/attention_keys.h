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

// Whether entry (row, column) keeps head `head`: 24 bits of its hash against
// ceil(p · 2^24), as the dense dropout tests them (dropout_keys.h).
inline STRATA_HOST_DEVICE bool attention_kept(std::uint64_t base, std::int64_t row,
                                              std::int64_t column, int head,
                                              std::uint32_t threshold) {
  const std::uint64_t entry =
      hash_key(hash_key(base, static_cast<std::uint64_t>(row)), static_cast<std::uint64_t>(column));
  return static_cast<std::uint32_t>(splitmix64(entry + static_cast<std::uint64_t>(head)) >> 40) >=
         threshold;
}

}  // namespace strata::kernels
