// The CPU backend through the checks every backend passes (backend_checks.h; test_gpu
// runs the same on the CUDA backend).
#include <catch2/catch.hpp>

#include "backend_checks.h"
#include "strata/kernels/backend.h"

namespace strata {
namespace {

TEST_CASE("CPU backend: SpMM with no entries leaves beta · y, 0 for beta = 0", "[kernels][spmm]") {
  const auto backend = kernels::make_cpu_backend();
  test::check_spmm_without_entries(*backend);
  test::check_sparse_features_without_entries(*backend);
}

}  // namespace
}  // namespace strata
