// Random test inputs: sparse matrices and strided dense views.
#pragma once
#include "strata/core/matrix.h"
#include "strata/core/random.h"
#include "strata/graph/csr.h"

namespace strata::test {

inline Csr random_csr(LocalId rows, LocalId cols, float density, std::uint64_t seed) {
  Rng rng(seed);
  Csr a;
  a.rows = rows;
  a.cols = cols;
  for (LocalId r = 0; r < rows; ++r) {
    for (LocalId c = 0; c < cols; ++c) {
      if (rng.uniform() >= density) continue;
      a.indices.push_back(c);
      a.values.push_back(rng.uniform() - 0.5f);
    }
    a.offsets.push_back(static_cast<EdgeOffset>(a.indices.size()));
  }
  return a;
}

// n scales in (0.1, 1.1]: a factored matrix's row or column scales (Csr::row_scale).
inline std::vector<float> random_scales(LocalId n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (float& v : out) v = 1.1f - rng.uniform();
  return out;
}

// A rows x cols view with stride cols + pad inside `storage`, filled with random values.
inline MatrixView random_view(std::vector<float>& storage, std::int64_t rows, std::int64_t cols,
                              std::int64_t pad, std::uint64_t seed) {
  Rng rng(seed);
  storage.assign(static_cast<std::size_t>(rows * (cols + pad) + 1), 0.0f);
  for (float& v : storage) v = rng.uniform() * 2.0f - 1.0f;
  return {storage.data(), rows, cols, cols + pad};
}

}  // namespace strata::test
