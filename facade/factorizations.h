// `strata comm-volume --memory-per-rank`: every S x G layout of the ranks, its bytes and
// its memory per rank.
#pragma once
#include <vector>

#include "partition_cache.h"
#include "strata/plan/comm_model.h"
#include "strata/training/train_config.h"

namespace strata {

// The training a request describes at `layers` layers, and its model's shape on d.
TrainConfig train_config_of(const CommVolumeRequest& r, int layers);
ModelShape request_shape(const Dataset& d, const CommVolumeRequest& r, int layers);

void add_factorizations(std::vector<Factorization>& out, const Dataset& d,
                        const CommVolumeRequest& r, const std::string& method, int layers,
                        PartitionCache& parts_of);

}  // namespace strata
