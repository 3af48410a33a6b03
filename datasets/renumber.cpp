// renumbered(): a dataset under a permutation of its vertices (e.g. reverse Cuthill-McKee,
// so that neighbours sit near each other in memory and the sparse product's gathers hit
// cache).
#include <vector>

#include "strata/core/error.h"
#include "strata/datasets/dataset.h"

namespace strata {
namespace {

// An input error if order is not a permutation of [0, n).
void check_permutation(std::span<const LocalId> order, LocalId n) {
  STRATA_REQUIRE(static_cast<std::int64_t>(order.size()) == n, "renumbered: an order of ",
                 order.size(), " vertices for a graph of ", n);
  std::vector<bool> seen(order.size(), false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const LocalId old = order[i];
    STRATA_REQUIRE(old >= 0 && old < n && !seen[static_cast<std::size_t>(old)],
                   "renumbered: entry ", i, " of the order (vertex ", old,
                   ") is out of range or repeated");
    seen[static_cast<std::size_t>(old)] = true;
  }
}

}  // namespace

Dataset renumbered(const Dataset& d, std::span<const LocalId> order) {
  check_permutation(order, d.adjacency.rows);
  const std::vector<GlobalId> ids(order.begin(), order.end());
  Dataset out;
  out.name = d.name;
  out.adjacency = permute_symmetric(d.adjacency, order);
  out.features = d.features.select_rows(ids);
  out.labels = select_values(d.labels, ids);
  out.num_classes = d.num_classes;
  out.train_mask = select_values(d.train_mask, ids);
  out.val_mask = select_values(d.val_mask, ids);
  out.test_mask = select_values(d.test_mask, ids);
  return out;
}

}  // namespace strata
