// Checks every backend passes, run on the CPU backend by test_kernels and on the CUDA
// backend by test_gpu.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "strata/kernels/backend.h"
#include "test_util.h"

namespace strata::test {

// rows x cols with no entry at all (all-zero sparse features, an empty chunk or shard).
inline Csr csr_without_entries(LocalId rows, LocalId cols) {
  Csr a;
  a.rows = rows;
  a.cols = cols;
  a.offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  return a;
}

// y = a · x + beta · y with no entry in a is beta · y, and 0 for beta = 0 without
// reading y (a NaN there does not survive), as the CPU kernel computes it.
inline void check_multiply_without_entries(kernels::SparseMatrix& a,
                                           const kernels::Backend& backend, std::int64_t width,
                                           float beta) {
  std::vector<float> xs, ys;
  const MatrixView x = random_view(xs, a.cols(), width, 0, 5);
  const MatrixView y0 = random_view(ys, a.rows(), width, 0, 6);
  if (beta == 0.0f) y0.at(0, 0) = std::nanf("");
  kernels::Tensor dx = kernels::to_backend(backend, x), dy = kernels::to_backend(backend, y0);
  a.multiply(dx.view(), dy.view(), beta);
  const Matrix y = kernels::to_host(backend, dy);
  for (std::int64_t r = 0; r < y.rows(); ++r)
    for (std::int64_t c = 0; c < width; ++c)
      REQUIRE(y.at(r, c) == (beta == 0.0f ? 0.0f : beta * y0.at(r, c)));
}

inline void check_spmm_without_entries(const kernels::Backend& backend) {
  for (const float beta : {0.0f, 1.0f, 0.5f})
    for (const std::int64_t width : {1, 3, 33}) {
      INFO(backend.name() << " beta " << beta << " width " << width);
      const Csr a = csr_without_entries(7, 5);
      check_multiply_without_entries(*backend.sparse(a.view()), backend, width, beta);
    }
}

// Sparse input features with no entry: X · W and Xᵀ · D are beta times what was there.
inline void check_sparse_features_without_entries(const kernels::Backend& backend) {
  const Csr x = csr_without_entries(7, 5);
  auto features = backend.sparse_features(x.view());
  for (const float beta : {0.0f, 0.5f}) {
    INFO(backend.name() << " beta " << beta);
    std::vector<float> ws, ys, ds, gs;
    const MatrixView w = random_view(ws, 5, 3, 0, 7), y0 = random_view(ys, 7, 3, 0, 8);
    const MatrixView d = random_view(ds, 7, 3, 0, 9), g0 = random_view(gs, 5, 3, 0, 10);
    kernels::Tensor dw = kernels::to_backend(backend, w), dy = kernels::to_backend(backend, y0);
    kernels::Tensor dd = kernels::to_backend(backend, d), dg = kernels::to_backend(backend, g0);
    features->multiply(dw.view(), dy.view(), beta);
    features->multiply_transposed(dd.view(), dg.view(), beta);
    const Matrix y = kernels::to_host(backend, dy), g = kernels::to_host(backend, dg);
    for (std::int64_t i = 0; i < y.size(); ++i) REQUIRE(y.data()[i] == beta * y0.data[i]);
    for (std::int64_t i = 0; i < g.size(); ++i) REQUIRE(g.data()[i] == beta * g0.data[i]);
  }
}

}  // namespace strata::test
