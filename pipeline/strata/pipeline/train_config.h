// Plain configuration and result structs for training; the CLI only fills them in.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace strata {

// Saving and resuming training state (checkpoint.h).
struct CheckpointOptions {
  std::string dir;      // empty: no checkpoints
  int every = 0;        // save after every N-th epoch; the last epoch is always saved
  bool resume = false;  // continue from the newest complete checkpoint in dir, if any
  int keep = 2;         // complete checkpoints kept; older ones are removed
  // Rank 0 only: one line per checkpoint event (saved, skipped, resumed from).
  std::function<void(const std::string&)> on_event;
};

struct TrainConfig {
  std::string model = "gcn";  // gcn | gcnii
  int layers = 2;
  int hidden = 16;
  int epochs = 200;
  float lr = 0.01f;
  float weight_decay = 5e-4f;
  float dropout = 0.5f;
  std::uint64_t seed = 0;
  float alpha = 0.1f;   // gcnii initial residual
  float lambda = 0.5f;  // gcnii identity mapping strength
  // Start from these parameter values (the model's parameter order, as
  // TrainResult::weights gives them) instead of the seeded initialization. Empty: seeded.
  std::vector<std::vector<float>> initial_weights;
  CheckpointOptions checkpoint;
  std::string on_nan = "stop";  // stop | skip-step: a step with NaN or inf (numeric_guard.h)
};

// Mode `pipeline` (and the pipeline side of `hybrid`).
struct PipelineOptions {
  int chunks = 4;
  std::string chunking = "metis";   // metis | rcm | range
  std::string layer_split;          // "4,4,4,4": layers per stage; empty: balanced by cost
  std::string stale_grad = "drop";  // drop | delay: gradients along edges read from history
  int warmup_epochs = 0;            // exact epochs (one chunk) before chunking starts
  bool alternate_order = false;     // run the chunks in reverse order on odd epochs
  // History smoothing: after each epoch's evaluation pass refreshes the history, it
  // becomes smoothing * previous history + (1 - smoothing) * fresh rows. 0: off.
  float smoothing = 0.0f;
};

struct EpochMetrics {
  std::int64_t epoch = 0;
  double loss = 0;
  double train_acc = 0;
  double val_acc = 0;
  double test_acc = 0;
  double epoch_s = 0;  // wall time of the training step (forward, backward, update)
  // Distributed modes: the largest over ranks of the training step's compute time and
  // of its time waiting in communication; bytes per category summed over ranks.
  double compute_s = 0;
  double comm_s = 0;
  std::map<std::string, std::int64_t> comm_bytes;
  // Pipeline mode: per stage, compute and idle (waiting for neighbours) time of the
  // training step, and the fraction of Â's entries read from history this epoch.
  std::vector<double> stage_compute_s, stage_idle_s;
  double history_fraction = 0;
  // --on-nan skip-step: the step met NaN or inf and the weights were left unchanged.
  bool step_skipped = false;
};

struct TrainResult {
  std::vector<EpochMetrics> epochs;
  // The final weights' accuracies: the last epoch's, or with zero epochs one evaluation
  // pass of the initial weights (loss 0, no bytes counted).
  EpochMetrics final_eval;
  double test_acc = 0;  // at the best validation epoch
  double best_val_acc = 0;
  std::int64_t best_epoch = -1;
  std::int64_t resumed_epochs = 0;                 // epochs restored from a checkpoint
  std::map<std::string, std::int64_t> comm_bytes;  // all epochs, summed over ranks
  // The trained parameters, every tensor of the whole model in its parameter order (for
  // gcn: W1, b1, W2, b2, ...), on every rank, also in pipeline mode.
  std::vector<std::vector<float>> weights;
  // --device cuda: the most of this rank's GPU memory in use after any epoch (0 elsewhere).
  std::int64_t device_bytes = 0;
};

using EpochCallback = std::function<void(const EpochMetrics&)>;

}  // namespace strata
