#include "strata/partition/local_graph.h"

#include <algorithm>

#include "strata/core/error.h"
#include "strata/partition/partitioner.h"

namespace strata {
namespace {

int count_parts(std::span<const std::int32_t> parts) {
  std::int32_t max_part = -1;
  for (std::int32_t p : parts) max_part = std::max(max_part, p);
  return max_part + 1;
}

void validate_parts(const Csr& a, std::span<const std::int32_t> parts, int num_parts) {
  STRATA_REQUIRE(a.rows == a.cols, "local graphs need a square adjacency, got ", a.rows, " x ",
                 a.cols);
  STRATA_REQUIRE(static_cast<LocalId>(parts.size()) == a.rows, "partition has ", parts.size(),
                 " entries for a graph of ", a.rows, " vertices");
  for (std::size_t v = 0; v < parts.size(); ++v)
    STRATA_REQUIRE(parts[v] >= 0 && parts[v] < num_parts, "vertex ", v, " has part ", parts[v],
                   " outside [0, ", num_parts, ")");
}

// Halo vertices of `part`: remote column-neighbours of its rows, ordered (owner, global id).
std::vector<GlobalId> halo_vertices(const Csr& a, std::span<const std::int32_t> parts, int part) {
  std::vector<GlobalId> halo;
  for (LocalId u = 0; u < a.rows; ++u) {
    if (parts[u] != part) continue;
    for (LocalId v : a.neighbors(u))
      if (parts[v] != part) halo.push_back(v);
  }
  std::sort(halo.begin(), halo.end(), [&](GlobalId x, GlobalId y) {
    return parts[x] != parts[y] ? parts[x] < parts[y] : x < y;
  });
  halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  return halo;
}

void number_vertices(LocalGraph& g, const Csr& a, std::span<const std::int32_t> parts) {
  g.local_to_global = vertices_of_part(parts, g.part);
  g.owned = static_cast<LocalId>(g.local_to_global.size());
  const std::vector<GlobalId> halo = halo_vertices(a, parts, g.part);
  g.halo = static_cast<LocalId>(halo.size());
  g.local_to_global.insert(g.local_to_global.end(), halo.begin(), halo.end());
}

void build_adjacency(LocalGraph& g, const Csr& a, std::span<const LocalId> global_to_local) {
  Csr& out = g.adjacency;
  out.rows = g.owned;
  out.cols = g.owned + g.halo;
  out.offsets.assign(static_cast<std::size_t>(out.rows) + 1, 0);
  std::vector<std::pair<LocalId, float>> row;
  for (LocalId r = 0; r < g.owned; ++r) {
    const auto u = static_cast<LocalId>(g.local_to_global[r]);
    row.clear();
    for (EdgeOffset e = a.offsets[u]; e < a.offsets[u + 1]; ++e)
      row.emplace_back(global_to_local[a.indices[e]], a.values.empty() ? 1.0f : a.values[e]);
    std::sort(row.begin(), row.end());  // local columns ascending, as builders produce
    for (const auto& [c, value] : row) {
      out.indices.push_back(c);
      if (!a.values.empty()) out.values.push_back(value);
    }
    out.offsets[r + 1] = out.nnz();
  }
  const std::span<const GlobalId> local_to_global(g.local_to_global);
  out.row_scale = scales_at(a.row_scale, local_to_global.first(static_cast<std::size_t>(g.owned)));
  out.col_scale = scales_at(a.col_scale, local_to_global);
}

// send[q]: owned vertices that are column-neighbours of some row of q, ascending global id.
// q's halo from p is exactly this set in the same order, so the two sides agree.
void build_plan(LocalGraph& g, const Csr& a, std::span<const std::int32_t> parts, int num_parts,
                std::span<const LocalId> global_to_local) {
  g.plan.send.assign(static_cast<std::size_t>(num_parts), {});
  g.plan.recv.assign(static_cast<std::size_t>(num_parts), {});
  for (LocalId u = 0; u < a.rows; ++u) {
    if (parts[u] == g.part) continue;
    for (LocalId v : a.neighbors(u))
      if (parts[v] == g.part) g.plan.send[parts[u]].push_back(global_to_local[v]);
  }
  for (auto& list : g.plan.send) {  // local ids of owned rows ascend with global ids
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  for (LocalId l = g.owned; l < g.owned + g.halo; ++l)
    g.plan.recv[parts[g.local_to_global[l]]].push_back(l);
}

LocalGraph build_one(const Csr& a, std::span<const std::int32_t> parts, int part, int num_parts,
                     std::span<const float> global_degree_plus_one) {
  LocalGraph g;
  g.part = part;
  number_vertices(g, a, parts);
  std::vector<LocalId> global_to_local(a.rows, -1);
  for (std::size_t l = 0; l < g.local_to_global.size(); ++l)
    global_to_local[g.local_to_global[l]] = static_cast<LocalId>(l);
  build_adjacency(g, a, global_to_local);
  build_plan(g, a, parts, num_parts, global_to_local);
  g.degree_plus_one.reserve(g.local_to_global.size());
  for (GlobalId v : g.local_to_global) g.degree_plus_one.push_back(global_degree_plus_one[v]);
  return g;
}

}  // namespace

LocalGraph build_local_graph(const Csr& global_adjacency, std::span<const std::int32_t> parts,
                             int part) {
  const int num_parts = std::max(count_parts(parts), part + 1);
  validate_parts(global_adjacency, parts, num_parts);
  STRATA_REQUIRE(part >= 0, "part id must be non-negative, got ", part);
  return build_one(global_adjacency, parts, part, num_parts, degrees_plus_one(global_adjacency));
}

std::vector<LocalGraph> build_local_graphs(const Csr& global_adjacency,
                                           std::span<const std::int32_t> parts, int num_parts) {
  validate_parts(global_adjacency, parts, num_parts);
  const std::vector<float> degree = degrees_plus_one(global_adjacency);
  std::vector<LocalGraph> graphs;
  graphs.reserve(static_cast<std::size_t>(num_parts));
  for (int p = 0; p < num_parts; ++p)
    graphs.push_back(build_one(global_adjacency, parts, p, num_parts, degree));
  return graphs;
}

}  // namespace strata
