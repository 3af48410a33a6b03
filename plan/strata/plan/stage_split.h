// Splitting L consecutive layers into S pipeline stages.
#pragma once
#include <span>
#include <string_view>
#include <vector>

namespace strata {

// First layer of each stage plus a final L: stage s runs layers [bounds[s], bounds[s+1]).
using StageBounds = std::vector<int>;

// Contiguous split minimising the largest stage cost; every stage gets at least one
// layer. Ties prefer earlier boundaries, so the result is deterministic.
StageBounds split_layers_by_cost(std::span<const double> layer_costs, int stages);

// "4,4,4,4": layers per stage, each positive; an input error naming --layer-split otherwise.
std::vector<int> parse_layer_split(std::string_view text);
// The bounds of stages of counts[0], counts[1], ... layers, which must sum to `layers`.
StageBounds stage_bounds_of(const std::vector<int>& counts, int layers);

}  // namespace strata
