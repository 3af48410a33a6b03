// The epoch loop every trainer shares: resume from a checkpoint, run the epochs, record
// them, save checkpoints when due. A trainer supplies the epochs and its own state.
//
// A checkpoint holds everything the next epoch reads: the parameters, Adam's moments and
// step count, the pipeline's history buffers, and the result so far. Dropout draws its
// masks from (seed, epoch, layer, vertex), so there is no random-generator state to save:
// a resumed run computes bit for bit what the uninterrupted run computes.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/sections.h"
#include "strata/store/checkpoint.h"
#include "strata/training/train_config.h"

namespace strata {

class EpochTrainer {
 public:
  virtual ~EpochTrainer() = default;
  // One training epoch and its evaluation; metrics already reduced over ranks. Collective.
  virtual EpochMetrics epoch(std::int64_t epoch) = 0;
  // An evaluation of the current weights only (training with zero epochs). Collective.
  virtual EpochMetrics evaluation() = 0;
  // The whole model's parameters, on every rank. Collective.
  virtual std::vector<std::vector<float>> weights() = 0;
  // This rank's share of the state the next epoch reads; load_state reads it back into a
  // trainer built with the same configuration.
  virtual void save_state(SectionWriter& out) = 0;
  virtual void load_state(SectionReader& in) = 0;
};

// The settings every run's key holds (mode, ranks, model, optimizer, data sizes); each
// trainer appends its own.
RunKey base_run_key(const char* mode, int ranks, const TrainConfig& config,
                    const std::string& dataset, std::int64_t vertices, std::int64_t features,
                    std::int32_t classes);

// Collective. With zero epochs (or none left after a resume) the result's final_eval is
// one evaluation of the weights.
TrainResult run_training(Communicator& comm, const TrainConfig& config, RunKey key,
                         EpochTrainer& trainer, const EpochCallback& on_epoch);

}  // namespace strata
