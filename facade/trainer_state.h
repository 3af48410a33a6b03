// What a Trainer keeps between calls: the graph as its mode needs it, and the model.
#pragma once
#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/shards/shard.h"
#include "strata/trainer.h"

namespace strata {

struct Trainer::State {
  GraphSummary summary;
  Dataset data;                       // local, pipeline and hybrid: the whole graph on every rank
  std::vector<std::int32_t> part_of;  // hybrid: the part of every vertex
  Shard shard;                        // graph: this rank's part
  ModelConfig model;
  std::int64_t baseline_bytes = 0;  // resident before the graph was loaded
};

// Collective: checks the config against the job and loads the graph as the mode needs
// it; every failure is agreed on.
void load_trainer_state(Communicator& comm, const Config& config, const GraphInput& graph,
                        Trainer::State& state);

}  // namespace strata
