// The profiling backend: the same results as the backend it wraps, each call counted under
// its name with the traffic and arithmetic it must have.
#include <catch2/catch.hpp>
#include <vector>

#include "strata/kernels/profiling_backend.h"
#include "test_util.h"

namespace strata {
namespace {

using test::random_csr;
using test::random_scales;
using test::random_view;

TEST_CASE("profiling backend: gemm and spmm as the inner backend, counted", "[kernels][profile]") {
  const auto cpu = kernels::make_cpu_backend();
  kernels::OpProfile profile;
  const auto timed = kernels::make_profiling_backend(*cpu, profile);
  std::vector<float> a_store, b_store, want_store, got_store;
  const MatrixView a = random_view(a_store, 7, 5, 2, 1), b = random_view(b_store, 5, 3, 0, 2);
  const MatrixView want = random_view(want_store, 7, 3, 0, 3);
  const MatrixView got = random_view(got_store, 7, 3, 0, 3);
  cpu->gemm(false, false, 1.0f, a, b, 0.5f, want);
  timed->gemm(false, false, 1.0f, a, b, 0.5f, got);
  CHECK(want_store == got_store);
  const kernels::OpRecord& gemm = profile.at("gemm");
  CHECK(gemm.calls == 1);
  CHECK(gemm.seconds >= 0);
  CHECK(gemm.cost.flops == 2.0 * 7 * 3 * 5);
  CHECK(gemm.cost.bytes == 4.0 * (7 * 5 + 5 * 3 + 2 * 7 * 3));  // c read (beta) and written

  const Csr m = random_csr(9, 5, 0.4f, 4);
  const auto plain = cpu->sparse(m.view());
  const auto counted = timed->sparse(m.view());
  std::vector<float> x_store, y_store, z_store;
  const MatrixView x = random_view(x_store, 5, 3, 0, 5);
  const MatrixView y = random_view(y_store, 9, 3, 0, 6), z = random_view(z_store, 9, 3, 0, 6);
  plain->multiply(x, y);
  counted->multiply(x, z);
  counted->multiply(x, z);
  plain->multiply(x, y);
  CHECK(y_store == z_store);
  const kernels::OpRecord& spmm = profile.at("spmm");
  const double entries = static_cast<double>(m.nnz());
  REQUIRE(entries > 0);
  CHECK(spmm.calls == 2);
  CHECK(spmm.cost.flops == 2 * 2 * entries * 3);
  CHECK(spmm.cost.gather_bytes == 2 * entries * 3 * 4);
  CHECK(profile.size() == 2);
  // The matrix streams an index and a value an entry and its offsets; factored, an index an
  // entry, its scales, and a column's scale gathered an entry beside x's row.
  const double matrix = entries * 8 + 9 * 8, vectors = (5 * 3 + 9 * 3) * 4.0;
  CHECK(spmm.cost.bytes == 2 * (matrix + vectors));
  const kernels::OpCost stored = spmm.cost;
  Csr f = m;
  f.values.clear();
  f.row_scale = random_scales(9, 7);
  f.col_scale = random_scales(5, 8);
  timed->sparse(f.view())->multiply(x, z);
  CHECK(spmm.cost.bytes - stored.bytes == entries * 4 + 9 * 8 + (9 + 5) * 4 + vectors);
  CHECK(spmm.cost.gather_bytes - stored.gather_bytes == entries * (3 * 4 + 4));
}

TEST_CASE("profiling backend: elementwise passes and the optimizer by name", "[kernels][profile]") {
  const auto cpu = kernels::make_cpu_backend();
  kernels::OpProfile profile;
  const auto timed = kernels::make_profiling_backend(*cpu, profile);
  std::vector<float> in_store, out_store;
  const MatrixView in = random_view(in_store, 33, 7, 0, 1);
  const MatrixView out = random_view(out_store, 33, 7, 0, 2);
  timed->relu_forward(in, out);
  timed->axpy(0.5f, in, out);
  std::vector<float> p(40, 1.0f), g(40, 0.5f), m1(40), v(40);
  timed->adam_step(p.data(), g.data(), m1.data(), v.data(), 40, {}, 1);
  CHECK(profile.at("relu_forward").cost.bytes == 33.0 * 7 * 4 * 2);
  CHECK(profile.at("axpy").cost.bytes == 33.0 * 7 * 4 * 3);
  CHECK(profile.at("optimizer").cost.bytes == 40.0 * 4 * 7);
  CHECK(profile.at("optimizer").cost.flops == 0);
  CHECK(p[0] != 1.0f);  // the step ran
}

}  // namespace
}  // namespace strata
