#include <catch2/catch.hpp>

#include "strata/core/error.h"
#include "strata/core/random.h"
#include "strata/plan/stage_split.h"

using namespace strata;

namespace {

double max_stage_cost(const std::vector<double>& costs, const StageBounds& b) {
  double worst = 0;
  for (std::size_t s = 0; s + 1 < b.size(); ++s) {
    double c = 0;
    for (int l = b[s]; l < b[s + 1]; ++l) c += costs[l];
    worst = std::max(worst, c);
  }
  return worst;
}

// Every way to cut `layers` into `stages` non-empty runs; the best max cost.
double brute_force(const std::vector<double>& costs, int stages, StageBounds& b, int s) {
  const int layers = static_cast<int>(costs.size());
  if (s == stages) return max_stage_cost(costs, b);
  double best = 1e300;
  for (int first = b[s - 1] + 1; first <= layers - (stages - s); ++first) {
    b[s] = first;
    best = std::min(best, brute_force(costs, stages, b, s + 1));
  }
  return best;
}

}  // namespace

TEST_CASE("split_layers_by_cost is optimal against brute force") {
  Rng rng(3);
  for (int layers = 1; layers <= 9; ++layers)
    for (int stages = 1; stages <= layers; ++stages) {
      std::vector<double> costs;
      for (int l = 0; l < layers; ++l) costs.push_back(1.0 + rng.uniform() * 9.0);
      const StageBounds got = split_layers_by_cost(costs, stages);
      REQUIRE(got.size() == static_cast<std::size_t>(stages + 1));
      CHECK(got.front() == 0);
      CHECK(got.back() == layers);
      for (int s = 0; s < stages; ++s) CHECK(got[s] < got[s + 1]);
      StageBounds scratch(stages + 1, layers);
      scratch[0] = 0;
      CHECK(max_stage_cost(costs, got) == Approx(brute_force(costs, stages, scratch, 1)));
    }
}

TEST_CASE("equal costs split evenly, one heavy layer gets a stage to itself") {
  CHECK(split_layers_by_cost(std::vector<double>(8, 1.0), 4) == StageBounds{0, 2, 4, 6, 8});
  CHECK(split_layers_by_cost(std::vector<double>{10, 1, 1, 1}, 2) == StageBounds{0, 1, 4});
}

TEST_CASE("bad splits are input errors") {
  CHECK_THROWS_AS(split_layers_by_cost(std::vector<double>(2, 1.0), 3), Error);
  CHECK(parse_layer_split("4,4,4,4") == std::vector<int>{4, 4, 4, 4});
  CHECK(stage_bounds_of({4, 4, 4, 4}, 16) == StageBounds{0, 4, 8, 12, 16});
  CHECK_THROWS_WITH(stage_bounds_of(parse_layer_split("4,4"), 9), Catch::Contains("sums to 8"));
  CHECK_THROWS_WITH(parse_layer_split("4,x"), Catch::Contains("'x'"));
  CHECK_THROWS_WITH(parse_layer_split("4,0,4"), Catch::Contains("'0'"));
  CHECK_THROWS_AS(parse_layer_split(""), Error);
}
