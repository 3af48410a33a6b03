// Partition quality: cut, balance, halo sizes and B, the boundary pairs that set
// graph-mode communication volume (DESIGN.md, "Communication volume").
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/graph/csr.h"

namespace strata {

struct PartitionQuality {
  int parts = 0;
  std::int64_t edge_cut = 0;  // undirected edges whose ends lie in different parts
  double vertex_balance = 0;  // max / average owned vertices
  double edge_balance = 0;    // max / average owned adjacency entries
  std::vector<std::int64_t> owned;
  std::vector<std::int64_t> halo;
  double replication_factor = 0;  // (total owned + total halo) / N
  // (vertex, remote part) pairs such that the vertex neighbours some vertex of that part;
  // equals the total length of all HaloPlan send lists.
  std::int64_t boundary_pairs = 0;
};

PartitionQuality measure_partition(const Csr& adjacency, std::span<const std::int32_t> parts,
                                   int num_parts);

}  // namespace strata
