#include "strata/partition/chunks.h"

#include <algorithm>

#include "strata/core/error.h"

namespace strata {
namespace {

using PartEdges = std::vector<std::vector<std::int64_t>>;

PartEdges count_part_edges(const Csr& a, std::span<const std::int32_t> parts, int k) {
  PartEdges edges(static_cast<std::size_t>(k), std::vector<std::int64_t>(k, 0));
  for (LocalId u = 0; u < a.rows; ++u)
    for (LocalId v : a.neighbors(u))
      if (parts[u] != parts[v]) ++edges[parts[u]][parts[v]];
  return edges;
}

// Start from the least connected part (likely an end of a chain), then repeatedly take the
// unvisited part with the most edges to the one just placed.
std::vector<int> greedy_walk(const PartEdges& edges) {
  const int k = static_cast<int>(edges.size());
  std::vector<std::int64_t> external(k, 0);
  for (int p = 0; p < k; ++p)
    for (int q = 0; q < k; ++q) external[p] += edges[p][q];
  std::vector<bool> placed(k, false);
  std::vector<int> walk;
  int current = static_cast<int>(std::min_element(external.begin(), external.end()) -
                                 external.begin());
  while (true) {
    walk.push_back(current);
    placed[current] = true;
    if (static_cast<int>(walk.size()) == k) break;
    int next = -1;
    for (int q = 0; q < k; ++q)
      if (!placed[q] && (next < 0 || edges[current][q] > edges[current][next])) next = q;
    current = next;
  }
  return walk;
}

std::vector<std::int32_t> ordered_metis_chunks(const Csr& a, int k, std::uint64_t seed) {
  PartitionOptions options;
  options.method = PartitionMethod::kMetis;
  options.parts = k;
  options.seed = seed;
  std::vector<std::int32_t> parts = partition_graph(a, options);
  const std::vector<int> walk = greedy_walk(count_part_edges(a, parts, k));
  std::vector<std::int32_t> rank_of_part(static_cast<std::size_t>(k));
  for (int position = 0; position < k; ++position) rank_of_part[walk[position]] = position;
  for (std::int32_t& p : parts) p = rank_of_part[p];
  return parts;
}

}  // namespace

std::vector<std::int32_t> make_chunks(const Csr& adjacency, int k, PartitionMethod method,
                                      std::uint64_t seed) {
  STRATA_REQUIRE(method != PartitionMethod::kRandom,
                 "chunking needs an edge-aware method: metis, rcm or range (not random)");
  if (method == PartitionMethod::kMetis && k > 1) return ordered_metis_chunks(adjacency, k, seed);
  PartitionOptions options;
  options.method = method == PartitionMethod::kMetis ? PartitionMethod::kRange : method;
  options.parts = k;
  options.seed = seed;
  return partition_graph(adjacency, options);
}

double later_chunk_edge_fraction(const Csr& adjacency, std::span<const std::int32_t> chunk) {
  STRATA_REQUIRE(static_cast<LocalId>(chunk.size()) == adjacency.rows, "chunk vector has ",
                 chunk.size(), " entries for ", adjacency.rows, " vertices");
  if (adjacency.nnz() == 0) return 0.0;
  std::int64_t later = 0;
  for (LocalId u = 0; u < adjacency.rows; ++u)
    for (LocalId v : adjacency.neighbors(u))
      if (chunk[v] > chunk[u]) ++later;
  return static_cast<double>(later) / static_cast<double>(adjacency.nnz());
}

}  // namespace strata
