// Shared helpers for layer tests: a hand-made graph, random matrices, gradient checks.
#pragma once
#include <catch2/catch.hpp>
#include <functional>
#include <span>

#include "strata/core/matrix.h"
#include "strata/core/random.h"
#include "strata/graph/csr.h"

namespace strata::test {

// 5 vertices:   0 --- 1 --- 2
//               |   /
//               3 -     4 (isolated)
// Â is built by hand with self-loops and non-symmetric weights so Âᵀ != Â matters.
inline Csr hand_graph() {
  Csr a;
  a.rows = a.cols = 5;
  a.offsets = {0, 3, 7, 9, 12, 13};
  a.indices = {0, 1, 3, 0, 1, 2, 3, 1, 2, 0, 1, 3, 4};
  a.values = {.4f, .3f, .2f, .25f, .3f, .2f, .1f, .35f, .5f, .3f, .15f, .45f, 1.f};
  return a;
}

inline Matrix random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix m(rows, cols);
  Rng rng(seed);
  for (float& v : m.storage()) v = rng.uniform() * 2.0f - 1.0f;
  return m;
}

// Objective Σ y ⊙ r, whose gradient w.r.t. y is r.
inline double dot(const Matrix& y, const Matrix& r) {
  double s = 0.0;
  for (std::int64_t i = 0; i < y.size(); ++i) s += double{y.data()[i]} * r.data()[i];
  return s;
}

// Checks analytic[i] against central differences of f over value[i].
inline void check_gradient(std::span<float> value, std::span<const float> analytic,
                           const std::function<double()>& f, float eps = 1e-2f) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    const float saved = value[i];
    value[i] = saved + eps;
    const double up = f();
    value[i] = saved - eps;
    const double down = f();
    value[i] = saved;
    INFO("element " << i);
    REQUIRE(analytic[i] == Approx((up - down) / (2.0 * eps)).epsilon(1e-2).margin(2e-3));
  }
}

}  // namespace strata::test
