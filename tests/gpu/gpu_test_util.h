// What the GPU tests share: the skip when no device answers, and random host matrices.
#pragma once
#include <catch2/catch.hpp>
#include <vector>

#include "skip.h"
#include "strata/core/device.h"
#include "strata/core/matrix.h"
#include "test_util.h"

namespace strata::test {

inline bool no_device() {
  if (gpu::available()) return false;
  skip("no CUDA device answers");
  return true;
}

inline Matrix random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::vector<float> storage;
  const MatrixView v = random_view(storage, rows, cols, 0, seed);
  Matrix m(rows, cols);
  std::copy(v.data, v.data + rows * cols, m.data());
  return m;
}

}  // namespace strata::test
