// Fennel streaming partitioning (fennel.cpp): partition_graph's method kFennel.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/partition/partitioner.h"

namespace strata {

// A first pass and its restreams over the vertices in id order (fennel.cpp).
std::vector<std::int32_t> fennel_parts(const Csr& adjacency, const PartitionOptions& options);

}  // namespace strata
