// Full-graph training in one process: the reference every distributed mode must match.
#pragma once
#include "strata/datasets/dataset.h"
#include "strata/pipeline/train_config.h"

namespace strata {

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch);

}  // namespace strata
