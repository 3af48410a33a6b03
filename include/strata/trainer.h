// Trainer: trains and evaluates one model on one graph in any mode, on every rank.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/config.h"
#include "strata/graph.h"
#include "strata/result.h"
#include "strata/workers.h"

namespace strata {

class Trainer {
 public:
  /// Collective. Loads the graph (graph mode: this rank's part; with the graph given
  /// whole, rank 0 partitions it and sends each rank its part) and checks the config.
  /// Failures of this setup are agreed on: every rank throws the same Error.
  Trainer(Workers& workers, Config config, GraphInput graph);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  using EpochCallback = std::function<void(const EpochRecord&)>;
  /// Collective. Trains config.optimizer.epochs epochs, starting from the current
  /// weights (the seeded initialization, or what set_weights / read_weights gave) with
  /// fresh Adam state; on_epoch runs on every rank after each epoch. The weights are
  /// then the trained ones.
  TrainingResult train(const EpochCallback& on_epoch = {});
  /// Collective. One exact evaluation pass of the current weights.
  TrainingResult evaluate();

  const Config& config() const { return config_; }
  /// The whole graph's sizes (graph mode with per-rank input: summed over ranks).
  const GraphSummary& graph() const;
  /// Pipeline and hybrid mode: each stage's layers and predicted memory per rank (hybrid:
  /// the stage's rank with the largest estimate); empty in other modes.
  std::vector<StagePlan> stage_plan() const;

  /// The whole model, on every rank: empty until train() or evaluate() has run, or
  /// weights were given.
  const std::vector<Tensor>& weights() const { return weights_; }
  /// Every rank must pass the same tensors; names and shapes must match the model.
  void set_weights(std::vector<Tensor> weights);
  /// Rank 0 writes the weights (checksummed, atomically); collective, so that every
  /// rank learns whether the write succeeded.
  void write_weights(const std::string& path);
  /// Every rank reads path and checks it against the model.
  void read_weights(const std::string& path);

  struct State;  ///< the loaded graph and the mode's inputs (facade/trainer_state.h)

 private:
  TrainingResult run(int epochs, const EpochCallback& on_epoch);
  Workers& workers_;
  Config config_;
  std::unique_ptr<State> state_;
  std::vector<Tensor> weights_;
};

}  // namespace strata
