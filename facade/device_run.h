// Trainer::run's path for Config::device.kind == "cuda" (and the config checks for it).
#pragma once
#include "strata/comm/communicator.h"
#include "strata/config.h"
#include "strata/pipeline/train_config.h"
#include "trainer_state.h"

namespace strata {

// Input errors for a device setting the mode or model cannot use; "no CUDA device"
// when none answers. Every rank makes the same checks.
void validate_device(const Config& config);
bool on_gpu(const Config& config);
// Collective: trains on this rank's GPU in the config's mode: the state's shard (graph),
// or its whole dataset (local, pipeline, hybrid).
TrainResult train_on_gpu(Communicator& comm, const Config& config, const Trainer::State& state,
                         const TrainConfig& train, const EpochCallback& on_epoch);

}  // namespace strata
