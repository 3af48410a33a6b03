#include "strata/layers/init.h"

#include <cmath>

#include "strata/core/random.h"

namespace strata {

void glorot_uniform(MatrixView w, std::uint64_t seed, std::int32_t layer) {
  if (w.rows + w.cols == 0) return;
  const float limit = std::sqrt(6.0f / static_cast<float>(w.rows + w.cols));
  const std::uint64_t base = hash_key(seed, 0x676c6f726f74ull, static_cast<std::uint64_t>(layer));
  for (std::int64_t i = 0; i < w.rows; ++i) {
    for (std::int64_t j = 0; j < w.cols; ++j) {
      const float u = uniform01(hash_key(base, static_cast<std::uint64_t>(i * w.cols + j)));
      w.at(i, j) = (2.0f * u - 1.0f) * limit;
    }
  }
}

}  // namespace strata
