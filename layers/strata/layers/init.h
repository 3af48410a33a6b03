// Weight initialization keyed by (seed, layer, element): independent of rank and order.
#pragma once
#include <cstdint>

#include "strata/core/matrix.h"

namespace strata {

// w[i, j] ~ U(-a, a), a = sqrt(6 / (rows + cols)) (Glorot & Bengio 2010).
void glorot_uniform(MatrixView w, std::uint64_t seed, std::int32_t layer);

}  // namespace strata
