#include <catch2/catch.hpp>

#include "invariants.h"
#include "strata/core/random.h"
#include "strata/partition/partitioner.h"

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

}  // namespace

TEST_CASE("local graphs: ownership, halos, send/recv, reassembly on a ladder") {
  testing::check_partition_invariants(ladder(), kParts, 3);
  const auto graphs = build_local_graphs(ladder(), kParts, 3);
  CHECK(graphs[0].halo == 2);  // 2 and 4
  CHECK(graphs[2].halo == 2);  // 2 and 4
}

TEST_CASE("local graph invariants on random graphs, every partitioner, 1 to 5 parts") {
  Rng rng(7);
  std::vector<Edge> edges;
  for (int i = 0; i < 900; ++i)
    edges.push_back(
        {static_cast<GlobalId>(rng.next() % 257), static_cast<GlobalId>(rng.next() % 257)});
  const Csr a = build_csr(257, edges, BuildOptions{});
  for (auto method : {PartitionMethod::kMetis, PartitionMethod::kRandom, PartitionMethod::kRange,
                      PartitionMethod::kRcm})
    for (int parts = 1; parts <= 5; ++parts) {
      INFO(partition_method_name(method) << ", " << parts << " parts");
      const auto assignment = partition_graph(a, PartitionOptions{method, parts});
      testing::check_partition_invariants(a, assignment, parts);
    }
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
