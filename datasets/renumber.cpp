// renumbered(): a dataset under a permutation of its vertices (e.g. reverse Cuthill-McKee,
// so that neighbours sit near each other in memory and the sparse product's gathers hit
// cache).
#include <algorithm>

#include "strata/core/error.h"
#include "strata/datasets/dataset.h"

namespace strata {
namespace {

// new_of[old] = new id; an input error if order is not a permutation of [0, n).
std::vector<LocalId> inverse_of(std::span<const LocalId> order, LocalId n) {
  STRATA_REQUIRE(static_cast<std::int64_t>(order.size()) == n, "renumbered: an order of ",
                 order.size(), " vertices for a graph of ", n);
  std::vector<LocalId> new_of(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const LocalId old = order[i];
    STRATA_REQUIRE(old >= 0 && old < n && new_of[static_cast<std::size_t>(old)] < 0,
                   "renumbered: entry ", i, " of the order (vertex ", old,
                   ") is out of range or repeated");
    new_of[static_cast<std::size_t>(old)] = static_cast<LocalId>(i);
  }
  return new_of;
}

// Row i of the result is row order[i] of a, its columns renamed by new_of and sorted
// (values carried along).
Csr permuted(const Csr& a, std::span<const LocalId> order, std::span<const LocalId> new_of) {
  Csr out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.offsets.reserve(static_cast<std::size_t>(a.rows) + 1);
  out.indices.reserve(a.indices.size());
  out.values.reserve(a.values.size());
  std::vector<std::pair<LocalId, float>> row;
  for (const LocalId old : order) {
    row.clear();
    for (EdgeOffset e = a.offsets[old]; e < a.offsets[old + 1]; ++e)
      row.emplace_back(new_of[static_cast<std::size_t>(a.indices[e])],
                       a.values.empty() ? 1.0f : a.values[e]);
    std::sort(row.begin(), row.end());
    for (const auto& [column, value] : row) {
      out.indices.push_back(column);
      if (!a.values.empty()) out.values.push_back(value);
    }
    out.offsets.push_back(static_cast<EdgeOffset>(out.indices.size()));
  }
  return out;
}

}  // namespace

Dataset renumbered(const Dataset& d, std::span<const LocalId> order) {
  const std::vector<LocalId> new_of = inverse_of(order, d.adjacency.rows);
  const std::vector<GlobalId> ids(order.begin(), order.end());
  Dataset out;
  out.name = d.name;
  out.adjacency = permuted(d.adjacency, order, new_of);
  out.features = d.features.select_rows(ids);
  out.labels = select_values(d.labels, ids);
  out.num_classes = d.num_classes;
  out.train_mask = select_values(d.train_mask, ids);
  out.val_mask = select_values(d.val_mask, ids);
  out.test_mask = select_values(d.test_mask, ids);
  return out;
}

}  // namespace strata
