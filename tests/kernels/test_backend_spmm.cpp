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

TEST_CASE("a plan whose construction throws leaves no entry; the next call makes it") {
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
