// The rows one rank of the hybrid mode holds: its part's vertices, sub-chunk by sub-chunk
// (chunk c of the job is the union of every part's sub-chunk c), then the halo (other
// parts' neighbours of them), with Â's owned rows over those columns and a halo plan per
// chunk: at chunk c, each layer exchanges only the rows of chunk c.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/graph/csr.h"
#include "strata/partition/local_graph.h"
#include "strata/pipeline/chunk_layout.h"

namespace strata {

struct HybridLayout {
  // a_hat: owned rows x (owned + halo) columns; order: the original id of every local
  // row, owned first; blocks: the owned rows of each chunk (some may be empty).
  ChunkLayout layout;
  LocalId owned = 0, halo = 0;
  std::vector<HaloPlan> chunk_plans;  // chunk c: the rows of the whole plan in chunk c
  HaloPlan whole_plan;
};

// part_of[v] in [0, parts), chunk_of[v] in [0, k); Â normalized with the graph's degrees.
HybridLayout make_hybrid_layout(const Csr& adjacency, std::span<const std::int32_t> part_of,
                                int part, std::span<const std::int32_t> chunk_of, int k);

}  // namespace strata
