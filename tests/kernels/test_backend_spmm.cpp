// The CPU backend through the checks every backend passes (backend_checks.h; test_gpu
// runs the same on the CUDA backend).
#include <catch2/catch.hpp>
#include <stdexcept>

#include "backend_checks.h"
#include "cuda/plans_by_width.h"
#include "strata/kernels/backend.h"

namespace strata {
namespace {

TEST_CASE("CPU backend: SpMM with no entries leaves beta · y, 0 for beta = 0", "[kernels][spmm]") {
  const auto backend = kernels::make_cpu_backend();
  test::check_spmm_without_entries(*backend);
  test::check_sparse_features_without_entries(*backend);
}

TEST_CASE("CPU backend: sparse_view multiplies the caller's CSR in place, a row block too",
          "[kernels][spmm]") {
  const auto backend = kernels::make_cpu_backend();
  REQUIRE(backend->host_memory());
  Csr a = test::random_csr(37, 29, 0.3f, 4);
  std::vector<float> xs, copied, viewed;
  const MatrixView x = test::random_view(xs, 29, 19, 1, 5);
  const auto run = [&](kernels::SparseMatrix& m, std::vector<float>& out) {
    out.assign(static_cast<std::size_t>(m.rows()) * 19, 0.0f);
    m.multiply(x, {out.data(), m.rows(), 19, 19});
  };
  run(*backend->sparse(a.view()), copied);
  const std::unique_ptr<kernels::SparseMatrix> view = backend->sparse_view(a.view());
  run(*view, viewed);
  CHECK(viewed == copied);
  // Rows [10, 30) as a view into a's arrays (offsets not from zero) and as a copy of its own.
  const CsrView block{20, 29, a.offsets.data() + 10, a.indices.data(), a.values.data()};
  CHECK(block.nnz() == a.offsets[30] - a.offsets[10]);
  Csr own;
  own.rows = 20;
  own.cols = 29;
  own.offsets.clear();
  for (LocalId r = 10; r <= 30; ++r) own.offsets.push_back(a.offsets[r] - a.offsets[10]);
  own.indices.assign(a.indices.begin() + a.offsets[10], a.indices.begin() + a.offsets[30]);
  own.values.assign(a.values.begin() + a.offsets[10], a.values.begin() + a.offsets[30]);
  run(*backend->sparse_view(block), viewed);
  run(*backend->sparse(own.view()), copied);
  CHECK(viewed == copied);
  // The view reads the arrays as they are now: it holds no copy.
  for (float& v : a.values) v *= 2.0f;
  run(*view, viewed);
  run(*backend->sparse(a.view()), copied);
  CHECK(viewed == copied);
  // Factored (a scale a row and a column): a copy keeps the scales, a row block's view
  // starts its row scales at its first row; both multiply the values stored would.
  a.values.clear();
  a.row_scale = test::random_scales(a.rows, 6);
  a.col_scale = test::random_scales(a.cols, 7);
  own.values = entry_values(rows_view(a, 10, 30));
  run(*backend->sparse_view(rows_view(a, 10, 30)), viewed);
  run(*backend->sparse(own.view()), copied);
  CHECK(viewed == copied);
  own.values = entry_values(a.view());
  own.offsets = a.offsets;
  own.indices = a.indices;
  own.rows = a.rows;
  run(*backend->sparse(a.view()), viewed);
  run(*backend->sparse(own.view()), copied);
  CHECK(viewed == copied);
}

TEST_CASE("a plan whose construction throws leaves no entry, the next call makes it") {
  struct Plan {
    std::int64_t width;
  };
  kernels::cuda::PlansByWidth<Plan> plans;
  const auto failing = []() -> std::unique_ptr<Plan> { throw std::runtime_error("no memory"); };
  REQUIRE_THROWS(plans.get(16, failing));
  CHECK_FALSE(plans.contains(16));
  int made = 0;
  const auto make = [&] {
    ++made;
    return std::make_unique<Plan>(Plan{16});
  };
  CHECK(plans.get(16, make).width == 16);
  CHECK(&plans.get(16, make) == &plans.get(16, make));
  CHECK(made == 1);
}

}  // namespace
}  // namespace strata
