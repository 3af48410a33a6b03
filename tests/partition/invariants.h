// The invariants every partition's local graphs must keep, checked for any graph.
#pragma once
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "strata/partition/local_graph.h"
#include "strata/partition/quality.h"

namespace strata::testing {

inline std::vector<GlobalId> to_global(const LocalGraph& g, const std::vector<LocalId>& ids) {
  std::vector<GlobalId> out;
  for (LocalId l : ids) out.push_back(g.local_to_global[l]);
  return out;
}

inline std::set<GlobalId> remote_neighbours(const Csr& a, std::span<const std::int32_t> parts,
                                            const LocalGraph& g) {
  std::set<GlobalId> halo;
  for (LocalId l = 0; l < g.owned; ++l)
    for (LocalId v : a.neighbors(static_cast<LocalId>(g.local_to_global[l])))
      if (parts[v] != g.part) halo.insert(v);
  return halo;
}

using Entries = std::map<std::pair<GlobalId, GlobalId>, float>;

inline void add_entries(const Csr& m, const std::vector<GlobalId>& row_ids,
                        const std::vector<GlobalId>& col_ids, Entries& out) {
  for (LocalId r = 0; r < m.rows; ++r)
    for (EdgeOffset e = m.offsets[r]; e < m.offsets[r + 1]; ++e)
      out[{row_ids[r], col_ids[m.indices[e]]}] = m.value(r, e);
}

// Every vertex owned once; halos are exactly the remote neighbours; what p sends q is what
// q expects from p; the local Â blocks reassemble the global Â bit for bit; B = Σ halo.
inline void check_partition_invariants(const Csr& a, std::span<const std::int32_t> parts,
                                       int num_parts) {
  const auto graphs = build_local_graphs(a, parts, num_parts);
  std::vector<int> owners(static_cast<std::size_t>(a.rows), 0);
  std::int64_t halo_total = 0, send_total = 0;
  Entries expected, got;
  std::vector<GlobalId> identity(static_cast<std::size_t>(a.rows));
  for (LocalId v = 0; v < a.rows; ++v) identity[v] = v;
  add_entries(gcn_normalize(a, degrees_plus_one(a)), identity, identity, expected);
  for (const auto& g : graphs) {
    for (LocalId l = 0; l < g.owned; ++l) ++owners[g.local_to_global[l]];
    const std::set<GlobalId> halo(g.local_to_global.begin() + g.owned, g.local_to_global.end());
    CHECK(halo == remote_neighbours(a, parts, g));
    halo_total += g.halo;
    for (int q = 0; q < num_parts; ++q) {
      CHECK(to_global(g, g.plan.send[q]) == to_global(graphs[q], graphs[q].plan.recv[g.part]));
      send_total += static_cast<std::int64_t>(g.plan.send[q].size());
    }
    add_entries(gcn_normalize(g.adjacency, g.degree_plus_one), g.local_to_global, g.local_to_global,
                got);
  }
  CHECK(owners == std::vector<int>(static_cast<std::size_t>(a.rows), 1));
  CHECK(got == expected);
  const auto quality = measure_partition(a, parts, num_parts);
  CHECK(quality.boundary_pairs == halo_total);
  CHECK(quality.boundary_pairs == send_total);
}

}  // namespace strata::testing
