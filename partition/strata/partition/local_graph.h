// One rank's view of a partitioned graph: owned rows, halo columns and the halo plan.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/graph/csr.h"

namespace strata {

struct HaloPlan {
  // send[q]: local ids of owned rows sent to peer q, in order (ascending global id).
  std::vector<std::vector<LocalId>> send;
  // recv[q]: local ids (>= owned) of halo rows filled from peer q, in the order q sends.
  std::vector<std::vector<LocalId>> recv;
};

struct LocalGraph {
  int part = 0;
  LocalId owned = 0;
  LocalId halo = 0;
  // Owned first (ascending global id), then halo grouped by owner part, ascending within.
  std::vector<GlobalId> local_to_global;
  Csr adjacency;                        // owned rows x (owned + halo) cols, local ids
  std::vector<float> degree_plus_one;  // per local column: GLOBAL degree + 1
  HaloPlan plan;
};

// Invariant: send[q] on p, mapped to global ids, equals recv[p] on q mapped to global ids.
LocalGraph build_local_graph(const Csr& global_adjacency, std::span<const std::int32_t> parts,
                             int part);
std::vector<LocalGraph> build_local_graphs(const Csr& global_adjacency,
                                           std::span<const std::int32_t> parts, int num_parts);

}  // namespace strata
