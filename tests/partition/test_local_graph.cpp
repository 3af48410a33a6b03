#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "strata/partition/local_graph.h"
#include "strata/partition/quality.h"

using namespace strata;

namespace {
//   0 --- 1 --- 2        parts: {0,1,3} -> 0, {2,4} -> 1, {5} -> 2
//   |     |     |
//   3 --- 4 --- 5
Csr ladder() {
  const std::vector<Edge> edges{{0, 1}, {1, 2}, {3, 4}, {4, 5}, {0, 3}, {1, 4}, {2, 5}};
  return build_csr(6, edges, BuildOptions{});
}
const std::vector<std::int32_t> kParts{0, 0, 1, 0, 1, 2};

std::vector<GlobalId> to_global(const LocalGraph& g, const std::vector<LocalId>& ids) {
  std::vector<GlobalId> out;
  for (LocalId l : ids) out.push_back(g.local_to_global[l]);
  return out;
}
}  // namespace

TEST_CASE("local graphs: ownership, halos and matching send/recv") {
  const Csr a = ladder();
  const auto graphs = build_local_graphs(a, kParts, 3);
  std::vector<int> owners(6, 0);
  for (const auto& g : graphs) {
    for (LocalId l = 0; l < g.owned; ++l) ++owners[g.local_to_global[l]];
    std::set<GlobalId> expected_halo;
    for (LocalId l = 0; l < g.owned; ++l)
      for (LocalId v : a.neighbors(static_cast<LocalId>(g.local_to_global[l])))
        if (kParts[v] != g.part) expected_halo.insert(v);
    std::set<GlobalId> halo(g.local_to_global.begin() + g.owned, g.local_to_global.end());
    CHECK(halo == expected_halo);
    for (int q = 0; q < 3; ++q)
      CHECK(to_global(g, g.plan.send[q]) == to_global(graphs[q], graphs[q].plan.recv[g.part]));
  }
  CHECK(owners == std::vector<int>(6, 1));
  CHECK(graphs[0].halo == 2);  // 2 and 4
}

TEST_CASE("local normalization reassembles the global one exactly") {
  const Csr a = ladder();
  const Csr global = gcn_normalize(a, degrees_plus_one(a));
  std::map<std::pair<GlobalId, GlobalId>, float> expected, got;
  for (LocalId r = 0; r < global.rows; ++r)
    for (EdgeOffset e = global.offsets[r]; e < global.offsets[r + 1]; ++e)
      expected[{r, global.indices[e]}] = global.values[e];
  for (const auto& g : build_local_graphs(a, kParts, 3)) {
    const Csr local = gcn_normalize(g.adjacency, g.degree_plus_one);
    for (LocalId r = 0; r < local.rows; ++r)
      for (EdgeOffset e = local.offsets[r]; e < local.offsets[r + 1]; ++e)
        got[{g.local_to_global[r], g.local_to_global[local.indices[e]]}] = local.values[e];
  }
  CHECK(got == expected);
}

TEST_CASE("boundary pairs equal the total send list length") {
  const Csr a = ladder();
  const auto q = measure_partition(a, kParts, 3);
  std::int64_t sends = 0;
  for (const auto& g : build_local_graphs(a, kParts, 3))
    for (const auto& list : g.plan.send) sends += static_cast<std::int64_t>(list.size());
  CHECK(q.boundary_pairs == sends);
  CHECK(q.edge_cut == 5);  // 1-2, 1-4, 3-4, 4-5, 2-5
  const auto single = build_local_graph(a, kParts, 1);
  CHECK(single.owned == 2);
}
