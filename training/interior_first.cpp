#include "strata/training/interior_first.h"

#include <algorithm>

#include "strata/training/row_layout.h"

namespace strata {
namespace {

// Owned rows that read a halo column or that another part reads (the graph may be directed).
std::vector<bool> boundary_rows(const Csr& a, const HaloPlan& plan, LocalId owned) {
  std::vector<bool> boundary(static_cast<std::size_t>(owned), false);
  for (LocalId r = 0; r < owned; ++r)
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e)
      if (a.indices[e] >= owned) boundary[static_cast<std::size_t>(r)] = true;
  for (const auto& list : plan.send)
    for (LocalId r : list) boundary[static_cast<std::size_t>(r)] = true;
  return boundary;
}

// The old id of every new row: the interior ones, then the boundary ones, each in order.
std::vector<GlobalId> interior_then_boundary(const std::vector<bool>& boundary) {
  std::vector<GlobalId> old_of;
  old_of.reserve(boundary.size());
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t r = 0; r < boundary.size(); ++r)
      if (boundary[r] == (pass == 1)) old_of.push_back(static_cast<GlobalId>(r));
  return old_of;
}

std::vector<LocalId> positions(std::span<const GlobalId> old_of) {
  std::vector<LocalId> position(old_of.size());
  for (std::size_t i = 0; i < old_of.size(); ++i)
    position[static_cast<std::size_t>(old_of[i])] = static_cast<LocalId>(i);
  return position;
}

// The first old_of.size() entries of v in the new order.
template <typename T>
void permute_owned(std::vector<T>& v, std::span<const GlobalId> old_of) {
  std::vector<T> head(old_of.size());
  for (std::size_t i = 0; i < old_of.size(); ++i) head[i] = v[static_cast<std::size_t>(old_of[i])];
  std::copy(head.begin(), head.end(), v.begin());
}

// Row i of the result is row old_of[i] of a; owned columns renumbered by position, halo
// columns kept, each row's entries in their order.
Csr renumber_owned(const Csr& a, std::span<const GlobalId> old_of,
                   std::span<const LocalId> position, LocalId owned) {
  Csr p;
  p.rows = a.rows;
  p.cols = a.cols;
  p.offsets.reserve(a.offsets.size());
  p.offsets.assign(1, 0);
  p.indices.reserve(a.indices.size());
  p.values.reserve(a.values.size());
  for (GlobalId old : old_of) {
    for (EdgeOffset e = a.offsets[old]; e < a.offsets[old + 1]; ++e) {
      const LocalId c = a.indices[e];
      p.indices.push_back(c < owned ? position[static_cast<std::size_t>(c)] : c);
      if (!a.values.empty()) p.values.push_back(a.values[e]);
    }
    p.offsets.push_back(p.nnz());
  }
  p.row_scale = a.row_scale;
  if (!p.row_scale.empty()) permute_owned(p.row_scale, old_of);
  p.col_scale = a.col_scale;
  if (!p.col_scale.empty()) permute_owned(p.col_scale, old_of);
  return p;
}

// The order rows are sent in stays (receivers expect it); their ids change.
void renumber_sent(HaloPlan& plan, std::span<const LocalId> position) {
  for (auto& list : plan.send)
    for (LocalId& r : list) r = position[static_cast<std::size_t>(r)];
}

}  // namespace

std::vector<GlobalId> interior_first(RowLayout& l) {
  STRATA_CHECK(l.chunk_count() == 1, "interior_first on a layout of ", l.chunk_count(), " chunks");
  const std::vector<bool> boundary = boundary_rows(l.a_hat, l.whole_plan, l.owned);
  const std::vector<GlobalId> old_of = interior_then_boundary(boundary);
  l.interior = static_cast<LocalId>(std::count(boundary.begin(), boundary.end(), false));
  const std::vector<LocalId> position = positions(old_of);
  permute_owned(l.order, old_of);
  l.a_hat = renumber_owned(l.a_hat, old_of, position, l.owned);
  renumber_sent(l.whole_plan, position);
  l.chunk_plans = {l.whole_plan};
  return old_of;
}

bool is_interior_first(const Shard& shard) {
  const std::vector<bool> boundary =
      boundary_rows(shard.graph.adjacency, shard.graph.plan, shard.graph.owned);
  return std::is_sorted(boundary.begin(), boundary.end());
}

void order_interior_first(Shard& shard) {
  LocalGraph& g = shard.graph;
  const std::vector<GlobalId> old_of =
      interior_then_boundary(boundary_rows(g.adjacency, g.plan, g.owned));
  if (is_identity(old_of)) return;
  const std::vector<LocalId> position = positions(old_of);
  g.adjacency = renumber_owned(g.adjacency, old_of, position, g.owned);
  permute_owned(g.local_to_global, old_of);
  permute_owned(g.degree_plus_one, old_of);
  renumber_sent(g.plan, position);
  shard.features = shard.features.select_rows(old_of);
  for (auto* v : {&shard.train_mask, &shard.val_mask, &shard.test_mask}) permute_owned(*v, old_of);
  permute_owned(shard.labels, old_of);
}

}  // namespace strata
