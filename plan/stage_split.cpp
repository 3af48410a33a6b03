#include "strata/plan/stage_split.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "strata/core/error.h"

namespace strata {
namespace {

// best[s][l]: least possible max cost when the first l layers form s stages.
struct SplitTable {
  std::vector<std::vector<double>> best;
  std::vector<std::vector<int>> cut;
};

SplitTable fill_table(std::span<const double> costs, int stages) {
  const int layers = static_cast<int>(costs.size());
  std::vector<double> prefix(costs.size() + 1, 0.0);
  for (int l = 0; l < layers; ++l) prefix[l + 1] = prefix[l] + costs[l];
  const double inf = std::numeric_limits<double>::infinity();
  SplitTable t{std::vector<std::vector<double>>(stages + 1, std::vector<double>(layers + 1, inf)),
               std::vector<std::vector<int>>(stages + 1, std::vector<int>(layers + 1, 0))};
  t.best[0][0] = 0.0;
  for (int s = 1; s <= stages; ++s)
    for (int l = s; l <= layers; ++l)
      for (int first = s - 1; first < l; ++first) {
        const double cost = std::max(t.best[s - 1][first], prefix[l] - prefix[first]);
        if (cost < t.best[s][l]) {
          t.best[s][l] = cost;
          t.cut[s][l] = first;
        }
      }
  return t;
}

}  // namespace

StageBounds split_layers_by_cost(std::span<const double> layer_costs, int stages) {
  const int layers = static_cast<int>(layer_costs.size());
  STRATA_REQUIRE(stages >= 1, "stages must be at least 1, got ", stages);
  STRATA_REQUIRE(stages <= layers, "cannot split ", layers, " layers into ", stages,
                 " stages: every stage needs a layer");
  const SplitTable t = fill_table(layer_costs, stages);
  StageBounds bounds(stages + 1, layers);
  for (int s = stages, l = layers; s > 0; --s) {
    l = t.cut[s][l];
    bounds[s - 1] = l;
  }
  return bounds;
}

std::vector<int> parse_layer_split(std::string_view text) {
  std::vector<int> counts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view token = text.substr(0, comma);
    int count = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), count);
    STRATA_REQUIRE(ec == std::errc() && end == token.data() + token.size() && count > 0,
                   "--layer-split: '", token, "' is not a positive layer count");
    counts.push_back(count);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  STRATA_REQUIRE(!counts.empty(), "--layer-split is empty");
  return counts;
}

StageBounds stage_bounds_of(const std::vector<int>& counts, int layers) {
  StageBounds bounds{0};
  for (int count : counts) bounds.push_back(bounds.back() + count);
  STRATA_REQUIRE(bounds.back() == layers, "--layer-split sums to ", bounds.back(),
                 " layers, the model has ", layers);
  return bounds;
}

}  // namespace strata
