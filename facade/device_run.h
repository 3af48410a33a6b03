// Trainer::run's path for Config::device.kind == "cuda" (and the config checks for it).
#pragma once
#include "strata/comm/communicator.h"
#include "strata/config.h"
#include "strata/result.h"
#include "strata/training/train_config.h"
#include "trainer_state.h"

namespace strata {

// Input errors for a device setting the mode or model cannot use; "no CUDA device"
// when none answers. Every rank makes the same checks.
void validate_device(const Config& config);
bool on_gpu(const Config& config);
// Collective: trains in the config's mode on this rank's device (the CPU, or its GPU): the
// state's shard (graph), or its whole dataset (local, pipeline, hybrid); with `profile`,
// every operation timed into it (Config::profile).
TrainResult train_on_device(Communicator& comm, const Config& config, const Trainer::State& state,
                            const TrainConfig& train, const EpochCallback& on_epoch,
                            Profile* profile = nullptr);

}  // namespace strata
