// Training configuration and results: plain structs, typed. The edge (the facade, the
// CLI) parses names and strings; the engine sees enums and numbers only.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "strata/core/row_codec.h"
#include "strata/layers/model_config.h"
#include "strata/layers/stage.h"
#include "strata/partition/partitioner.h"
#include "strata/store/checkpoint.h"
#include "strata/training/numeric_guard.h"

namespace strata {

// How a job's ranks share the work (include/strata/config.h describes each).
enum class ParallelMode { kLocal, kGraph, kPipeline, kHybrid };
const char* parallel_mode_name(ParallelMode mode);

struct TrainConfig {
  ModelKind model = ModelKind::kGcn;
  int layers = 2;
  int hidden = 16;
  int epochs = 200;
  float lr = 0.01f;
  float weight_decay = 5e-4f;
  float dropout = 0.5f;
  std::uint64_t seed = 0;
  float alpha = 0.1f;              // gcnii initial residual
  float lambda = 0.5f;             // gcnii identity mapping strength
  bool learn_eps = false;          // gin: eps a parameter (from 0), else 0
  int heads = 1;                   // gat: heads of the hidden layers (concatenated)
  int output_heads = 1;            // gat: heads of the output layer (averaged)
  float attention_dropout = 0.0f;  // gat: dropout of the attention weights
  // Start from these parameter values (the model's parameter order, as
  // TrainResult::weights gives them) instead of the seeded initialization. Empty: seeded.
  std::vector<std::vector<float>> initial_weights;
  CheckpointOptions checkpoint;
  OnNan on_nan = OnNan::kStop;  // a step with NaN or inf (numeric_guard.h)
  // Graph and hybrid mode: a whole block's halo travels while the owned columns multiply.
  bool overlap = true;
  // Recompute each aggregation Â P in the backward instead of keeping it (StageSetup::
  // recompute): local mode and one-chunk pipelines, GCN and GraphSAGE.
  bool recompute = false;
  // The format kept aggregations are stored in (StageSetup::storage): kFloat32 or kBf16.
  RowCodec storage = RowCodec::kFloat32;
  // GCN's Â as its degrees' scales instead of a value an entry (propagation_matrix).
  bool factored_adjacency = false;
  // How halo rows and stage rows travel (activations and the evaluation pass forward,
  // their gradients backward). Not used with one rank.
  RowCodecs compress;
};

// Mode `pipeline` (and the pipeline side of `hybrid`).
struct PipelineOptions {
  int chunks = 4;
  PartitionMethod chunking = PartitionMethod::kMetis;  // metis | rcm | range
  std::vector<int> layer_split;                        // layers per stage; empty: balanced by cost
  StaleGrad stale_grad = StaleGrad::kExact;            // gradients along edges read from history
  float stale_weight = 1.0f;     // kDelay: the share of last epoch's stale gradient added
  int warmup_epochs = 0;         // exact epochs (one chunk) before chunking starts
  bool alternate_order = false;  // run the chunks in reverse order on odd epochs
  // History smoothing: after each epoch's evaluation pass refreshes the history, it
  // becomes smoothing * previous history + (1 - smoothing) * fresh rows. 0: off.
  float smoothing = 0.0f;
  // Compare every chunked step with the exact one (diagnosis.h); mode pipeline only.
  bool diagnose = false;
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
  // The largest over ranks of the time halo transfers were in flight while the rank
  // computed (ByteCounters' overlap_seconds): communication the overlap hid, at most.
  double comm_overlap_s = 0;
  std::map<std::string, std::int64_t> comm_bytes;
  // Pipeline mode: per stage, compute and idle (waiting for neighbours) time of the
  // training step, and the fraction of Â's entries read from history this epoch.
  std::vector<double> stage_compute_s, stage_idle_s;
  double history_fraction = 0;
  // --diagnose: the cosine between the chunked and the exact gradient, the exact step's
  // loss, and each graph layer's output error |Y_chunked - Y_exact| / |Y_exact|.
  double gradient_cosine = 0;
  double exact_loss = 0;
  std::vector<double> layer_error;
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
