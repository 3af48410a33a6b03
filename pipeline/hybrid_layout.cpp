#include "strata/pipeline/hybrid_layout.h"

#include <algorithm>
#include <numeric>

#include "strata/core/error.h"

namespace strata {
namespace {

// Vertices sorted by (part, chunk, id): a part's sub-chunks become consecutive ids, so
// build_local_graph's owned rows (ascending id) come out chunk by chunk.
std::vector<GlobalId> part_chunk_order(std::span<const std::int32_t> part_of,
                                       std::span<const std::int32_t> chunk_of) {
  std::vector<GlobalId> order(part_of.size());
  std::iota(order.begin(), order.end(), GlobalId{0});
  std::stable_sort(order.begin(), order.end(), [&](GlobalId a, GlobalId b) {
    return std::pair(part_of[a], chunk_of[a]) < std::pair(part_of[b], chunk_of[b]);
  });
  return order;
}

HaloPlan plan_of_chunk(const HaloPlan& whole, const std::vector<std::int32_t>& local_chunk, int c) {
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
double outside_fraction(const ChunkLayout& l, const std::vector<std::int32_t>& local_chunk,
                        bool later) {
  if (l.a_hat.nnz() == 0) return 0.0;
  std::int64_t count = 0;
  for (const ChunkBlock& b : l.blocks)
    for (EdgeOffset e = l.a_hat.offsets[b.begin]; e < l.a_hat.offsets[b.end]; ++e) {
      const std::int32_t c = local_chunk[static_cast<std::size_t>(l.a_hat.indices[e])];
      count += later ? c > b.chunk : c < b.chunk;
    }
  return static_cast<double>(count) / static_cast<double>(l.a_hat.nnz());
}

}  // namespace

HybridLayout make_hybrid_layout(const Csr& adjacency, std::span<const std::int32_t> part_of,
                                int part, std::span<const std::int32_t> chunk_of, int k) {
  const auto n = static_cast<std::size_t>(adjacency.rows);
  STRATA_REQUIRE(part_of.size() == n && chunk_of.size() == n, "hybrid layout: ", part_of.size(),
                 " part ids and ", chunk_of.size(), " chunk ids for ", n, " vertices");
  const std::vector<GlobalId> order = part_chunk_order(part_of, chunk_of);
  const Csr a_hat = permute_symmetric(gcn_normalize(adjacency, degrees_plus_one(adjacency)), order);
  std::vector<std::int32_t> parts(n);
  for (std::size_t i = 0; i < n; ++i) parts[i] = part_of[order[i]];
  LocalGraph local = build_local_graph(a_hat, parts, part);

  HybridLayout h;
  h.owned = local.owned;
  h.halo = local.halo;
  std::vector<std::int32_t> local_chunk;
  for (GlobalId v : local.local_to_global) {
    h.layout.order.push_back(order[v]);
    local_chunk.push_back(chunk_of[order[v]]);
  }
  h.layout.a_hat = std::move(local.adjacency);
  LocalId begin = 0;
  for (int c = 0; c < k; ++c) {
    LocalId end = begin;
    while (end < h.owned && local_chunk[static_cast<std::size_t>(end)] == c) ++end;
    h.layout.blocks.push_back(make_row_block(h.layout.a_hat, begin, end, c));
    h.chunk_plans.push_back(plan_of_chunk(local.plan, local_chunk, c));
    begin = end;
  }
  STRATA_CHECK(begin == h.owned, "owned rows out of chunk order");
  h.whole_plan = std::move(local.plan);
  h.layout.later_entry_fraction = outside_fraction(h.layout, local_chunk, true);
  h.layout.earlier_entry_fraction = outside_fraction(h.layout, local_chunk, false);
  return h;
}

}  // namespace strata
