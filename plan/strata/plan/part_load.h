// What each part of a partition gives its rank to do, for the time model: rows, entries,
// feature nonzeros, interior rows and halo rows; and how often a chunked pipeline reads
// history.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/datasets/dataset.h"
#include "strata/plan/time_model.h"

namespace strata {

// self_loops: the model's propagation matrix adds one entry per row (GCN's Â).
std::vector<PartLoad> part_loads(const Dataset& data, std::span<const std::int32_t> part_of,
                                 int parts, bool self_loops);

// The fraction of the adjacency's off-diagonal entries (u, v) whose column v lies in a
// later chunk than row u: the neighbour reads a chunked forward takes from history.
double stale_read_fraction(const Csr& adjacency, std::span<const std::int32_t> chunk_of);

}  // namespace strata
