#include "strata/training/row_layout.h"

#include <algorithm>
#include <numeric>

#include "strata/core/error.h"

namespace strata {
namespace {

// Vertices sorted by (part, chunk, id): a part's chunks become consecutive ids.
std::vector<GlobalId> part_chunk_order(std::span<const std::int32_t> part_of,
                                       std::span<const std::int32_t> chunk_of, int k) {
  std::vector<GlobalId> order(chunk_of.size());
  std::iota(order.begin(), order.end(), GlobalId{0});
  for (std::size_t v = 0; v < chunk_of.size(); ++v)
    STRATA_REQUIRE(chunk_of[v] >= 0 && chunk_of[v] < k, "vertex ", v, " is in chunk ", chunk_of[v],
                   ", outside [0, ", k, ")");
  std::stable_sort(order.begin(), order.end(), [&](GlobalId a, GlobalId b) {
    return std::pair(part_of[a], chunk_of[a]) < std::pair(part_of[b], chunk_of[b]);
  });
  return order;
}

// The owned rows of each chunk, given the chunk of every local row (owned rows in chunk order).
std::vector<Block> chunk_blocks(std::span<const std::int32_t> local_chunk, LocalId owned, int k) {
  std::vector<Block> blocks;
  LocalId begin = 0;
  for (int c = 0; c < k; ++c) {
    LocalId end = begin;
    while (end < owned && local_chunk[static_cast<std::size_t>(end)] == c) ++end;
    blocks.push_back({begin, end, c});
    begin = end;
  }
  STRATA_CHECK(begin == owned, "owned rows out of chunk order");
  return blocks;
}

HaloPlan plan_of_chunk(const HaloPlan& whole, std::span<const std::int32_t> local_chunk, int c) {
  HaloPlan plan;
  const auto keep = [&](const std::vector<LocalId>& list) {
    std::vector<LocalId> out;
    for (LocalId l : list)
      if (local_chunk[static_cast<std::size_t>(l)] == c) out.push_back(l);
    return out;
  };
  for (const auto& list : whole.send) plan.send.push_back(keep(list));
  for (const auto& list : whole.recv) plan.recv.push_back(keep(list));
  return plan;
}

// Fraction of the owned rows' entries whose column is in a later (or earlier) chunk.
double outside_fraction(const RowLayout& l, std::span<const std::int32_t> local_chunk, bool later) {
  if (l.a_hat.nnz() == 0) return 0.0;
  std::int64_t count = 0;
  for (const Block& b : l.chunks)
    for (EdgeOffset e = l.a_hat.offsets[b.begin]; e < l.a_hat.offsets[b.end]; ++e) {
      const std::int32_t c = local_chunk[static_cast<std::size_t>(l.a_hat.indices[e])];
      count += later ? c > b.chunk : c < b.chunk;
    }
  return static_cast<double>(count) / static_cast<double>(l.a_hat.nnz());
}

void finish_chunks(RowLayout& l, std::span<const std::int32_t> local_chunk, int k) {
  l.chunks = chunk_blocks(local_chunk, l.owned, k);
  l.later_entry_fraction = outside_fraction(l, local_chunk, true);
  l.earlier_entry_fraction = outside_fraction(l, local_chunk, false);
}

}  // namespace

bool is_identity(std::span<const GlobalId> order) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<GlobalId>(i)) return false;
  return true;
}

Csr propagation_matrix(const Csr& adjacency, std::span<const float> degree_plus_one,
                       Propagation propagation, bool factored) {
  switch (propagation) {
    case Propagation::kGcn: {
      Csr a_hat = gcn_normalize(adjacency, degree_plus_one);
      if (!factored) store_values(a_hat);
      return a_hat;
    }
    case Propagation::kMean:
      return mean_normalize(adjacency, degree_plus_one);
    case Propagation::kSum:
      return sum_with_self_loops(adjacency);
  }
  STRATA_CHECK(false, "unknown propagation");
  return {};
}

RowLayout whole_graph_layout(const Csr& adjacency, std::span<const std::int32_t> chunk_of, int k,
                             Propagation propagation, bool factored) {
  STRATA_REQUIRE(k >= 1, "--chunks must be at least 1, got ", k);
  STRATA_REQUIRE(static_cast<LocalId>(chunk_of.size()) == adjacency.rows, chunk_of.size(),
                 " chunk ids for ", adjacency.rows, " vertices");
  const std::vector<std::int32_t> one_part(chunk_of.size(), 0);
  RowLayout l;
  l.order = part_chunk_order(one_part, chunk_of, k);
  l.owned = adjacency.rows;
  l.a_hat = propagation_matrix(adjacency, degrees_plus_one(adjacency), propagation, factored);
  if (!is_identity(l.order)) l.a_hat = permute_symmetric(l.a_hat, l.order);
  std::vector<std::int32_t> local_chunk(chunk_of.size());
  for (std::size_t i = 0; i < l.order.size(); ++i) local_chunk[i] = chunk_of[l.order[i]];
  for (int c = 0; c < k; ++c)
    STRATA_REQUIRE(std::find(local_chunk.begin(), local_chunk.end(), c) != local_chunk.end(),
                   "chunk ", c, " of ", k, " has no vertex");
  finish_chunks(l, local_chunk, k);
  return l;
}

RowLayout part_layout(const Csr& adjacency, std::span<const std::int32_t> part_of, int parts,
                      int part, std::span<const std::int32_t> chunk_of, int k,
                      Propagation propagation, bool factored) {
  const auto n = static_cast<std::size_t>(adjacency.rows);
  STRATA_REQUIRE(part_of.size() == n && chunk_of.size() == n, "row layout: ", part_of.size(),
                 " part ids and ", chunk_of.size(), " chunk ids for ", n, " vertices");
  const std::vector<GlobalId> order = part_chunk_order(part_of, chunk_of, k);
  // GCN's Â stays factored over the whole graph (its values, 4 bytes an entry, twice, would
  // be the setup's peak) and gets them on the part's rows: the same bits either way.
  const Csr a_hat = permute_symmetric(
      propagation_matrix(adjacency, degrees_plus_one(adjacency), propagation, true), order);
  std::vector<std::int32_t> permuted_parts(n);
  for (std::size_t i = 0; i < n; ++i) permuted_parts[i] = part_of[order[i]];
  LocalGraph local = build_local_graph(a_hat, permuted_parts, part);
  RowLayout l;
  l.owned = local.owned;
  l.halo = local.halo;
  l.parts = parts;
  std::vector<std::int32_t> local_chunk;
  for (GlobalId v : local.local_to_global) {
    l.order.push_back(order[v]);
    local_chunk.push_back(chunk_of[order[v]]);
  }
  l.a_hat = std::move(local.adjacency);
  if (propagation == Propagation::kGcn && !factored) store_values(l.a_hat);
  finish_chunks(l, local_chunk, k);
  for (int c = 0; c < k; ++c) l.chunk_plans.push_back(plan_of_chunk(local.plan, local_chunk, c));
  l.whole_plan = std::move(local.plan);
  if (k == 1 && parts > 1) interior_first(l);  // the rank's rows are selected by l.order
  return l;
}

RowLayout shard_layout(const LocalGraph& graph, int parts, Propagation propagation, bool factored) {
  RowLayout l;
  l.order = graph.local_to_global;
  l.owned = graph.owned;
  l.halo = graph.halo;
  l.parts = parts;
  l.a_hat = propagation_matrix(graph.adjacency, graph.degree_plus_one, propagation, factored);
  l.chunks = {{0, graph.owned, 0}};
  l.whole_plan = graph.plan;
  l.chunk_plans = {graph.plan};
  return l;
}

}  // namespace strata
