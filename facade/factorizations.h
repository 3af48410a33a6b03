// `strata comm-volume --memory-per-rank`: every S x G layout of the ranks, its bytes and
// its memory per rank.
#pragma once
#include <vector>

#include "partition_cache.h"

namespace strata {

void add_factorizations(std::vector<Factorization>& out, const Dataset& d,
                        const CommVolumeRequest& r, const std::string& method, int layers,
                        PartitionCache& parts_of);

}  // namespace strata
