// Dense features read through a row order (layers/features.h): a stage whose rows are
// another order or a subset of the loaded array reads it in place, and sees what a copy of
// its rows in that order would give, under dropout too.
#include <catch2/catch.hpp>

#include "strata/core/random.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/features.h"

namespace strata {
namespace {

Matrix random_rows(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix m(rows, cols);
  Rng rng(seed);
  for (float& v : m.storage()) v = rng.uniform() - 0.5f;
  return m;
}

Matrix rows_in_order(const Matrix& x, const std::vector<LocalId>& order) {
  Matrix out(static_cast<std::int64_t>(order.size()), x.cols());
  for (std::size_t r = 0; r < order.size(); ++r)
    for (std::int64_t c = 0; c < x.cols(); ++c)
      out.at(static_cast<std::int64_t>(r), c) = x.at(order[r], c);
  return out;
}

// copy_to, X W and Xᵀ G of a pass with dropout p, one after another.
std::vector<float> everything(Features& f, const std::vector<GlobalId>& ids, float p) {
  const Matrix w = random_rows(f.cols(), 3, 7), g = random_rows(f.rows(), 3, 8);
  f.drop(ids.data(), p, 11, 2);
  Matrix x(f.rows(), f.cols()), y(f.rows(), 3);
  f.copy_to(x.view());
  f.multiply(w.view(), y.view());
  std::vector<double> sums(static_cast<std::size_t>(f.cols() * 3), 0.0);
  f.accumulate_transposed(g.view(), {sums.data(), f.cols(), 3});
  std::vector<float> out = x.storage();
  out.insert(out.end(), y.storage().begin(), y.storage().end());
  for (double s : sums) out.push_back(static_cast<float>(s));
  return out;
}

TEST_CASE("features read through a row order equal a copy of those rows, dropped alike",
          "[layers][features]") {
  const auto backend = kernels::make_cpu_backend();
  REQUIRE(backend->gradient_type() == DType::kFloat64);
  const Matrix x = random_rows(9, 5, 3);
  const std::vector<LocalId> order{7, 0, 4, 2, 8, 1};  // another order, and a subset
  const std::vector<GlobalId> ids{70, 0, 40, 20, 80, 10};
  const Matrix copied = rows_in_order(x, order);
  for (float p : {0.0f, 0.5f}) {
    INFO("dropout " << p);
    Features through(*backend, x.view(), order), copy(*backend, copied.view());
    CHECK(through.rows() == 6);
    CHECK(everything(through, ids, p) == everything(copy, ids, p));
  }
  CHECK_THROWS_WITH(Features(*backend, x.view(), {3, 9}),
                    Catch::Contains("feature row 9 outside [0, 9)"));
}

}  // namespace
}  // namespace strata
