// Vertex partitioners: METIS k-way, seeded random, contiguous ranges, ranges of the reverse
// Cuthill-McKee order, and Fennel streaming (a part per vertex and a few counters per part
// beside the graph, where METIS holds several copies of it). Each returns one part id in
// [0, parts) per vertex.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "strata/graph/csr.h"

namespace strata {

enum class PartitionMethod { kMetis, kRandom, kRange, kRcm, kFennel };

struct PartitionOptions {
  PartitionMethod method = PartitionMethod::kMetis;
  int parts = 1;
  double imbalance = 0.03;        // allowed max/avg part weight minus one (METIS ufactor, Fennel)
  bool metis_min_volume = false;  // METIS objective: communication volume instead of edge cut
  // METIS and Fennel balance vertices and also edges (vertex weight degree + 1, a second
  // constraint): SpMM time follows edges, and on power-law graphs vertex balance alone
  // leaves one part with twice the edges of another.
  bool balance_edges = true;
  std::uint64_t seed = 0;
};

// "metis", "random", "range", "rcm", "fennel"; anything else is an input error listing these.
PartitionMethod parse_partition_method(std::string_view name);
const char* partition_method_name(PartitionMethod method);

std::vector<std::int32_t> partition_graph(const Csr& adjacency, const PartitionOptions& options);

// Reverse Cuthill-McKee order: order[i] is the vertex placed at position i.
std::vector<LocalId> reverse_cuthill_mckee_order(const Csr& adjacency);

// The vertices v with part_of[v] == part, ascending.
std::vector<GlobalId> vertices_of_part(std::span<const std::int32_t> part_of, int part);

// Splits positions 0..order.size() into `parts` contiguous balanced ranges.
std::vector<std::int32_t> ranges_of_order(std::span<const LocalId> order, int parts);

}  // namespace strata
