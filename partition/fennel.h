// Fennel streaming partitioning (fennel.cpp): partition_graph's method kFennel.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/partition/partitioner.h"

namespace strata {

// The first pass and passes - 1 restreams over the vertices in id order.
std::vector<std::int32_t> fennel_parts(const Csr& adjacency, const PartitionOptions& options,
                                       int passes);

}  // namespace strata
