// Vertex chunks for the pipeline mode: K chunks ordered so neighbouring chunks share edges,
// which keeps most edges pointing to the same or an earlier chunk (fewer historical reads).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/partition/partitioner.h"

namespace strata {

// Chunk id per vertex. kMetis: METIS parts relabelled along a greedy walk that maximizes
// edges to the previous chunk; kRcm and kRange: ranges of that order (already banded).
std::vector<std::int32_t> make_chunks(const Csr& adjacency, int k, PartitionMethod method,
                                      std::uint64_t seed);

// Fraction of directed edges (u, v) with chunk[v] > chunk[u]; 0 for an edgeless graph.
double later_chunk_edge_fraction(const Csr& adjacency, std::span<const std::int32_t> chunk);

}  // namespace strata
