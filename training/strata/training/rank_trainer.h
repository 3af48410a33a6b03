// One rank's share of training, in every mode and for every model, on a backend (the CPU
// backend or a GPU): its stage of the model over its rows, block by block. An epoch runs
// the chunks forward through the stages (stage s runs chunk c once stage s - 1 has sent
// it), backward in reverse order, all-reduces the gradient sums within the stage's parts,
// takes one Adam step, then runs an exact evaluation pass (one block of every row) that
// also refreshes the history. With one stage and one chunk that is whole-graph training:
// local mode (1 x 1) and graph mode (1 x P) are this engine's exact special cases.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "strata/datasets/feature_matrix.h"
#include "strata/layers/adam.h"
#include "strata/layers/stage.h"
#include "strata/plan/stage_split.h"
#include "strata/training/block_rows.h"
#include "strata/training/diagnosis.h"
#include "strata/training/rank_grid.h"
#include "strata/training/rank_state.h"
#include "strata/training/stage_halo.h"
#include "strata/training/stage_passes.h"
#include "strata/training/train_config.h"
#include "strata/training/training_loop.h"

namespace strata {

// What a rank trains on, in its layout's row order.
struct RankData {
  RowLayout layout;
  // The first stage's input features over the owned rows (elsewhere null). The trainer
  // keeps them: a backend that shares host memory reads them in place. Dense features may
  // be a larger array read through feature_rows (owned row r is its row feature_rows[r]).
  std::shared_ptr<const FeatureMatrix> features;
  StageLabels labels;
  std::vector<LocalId> feature_rows;
};

struct RankSetup {
  ParallelMode mode = ParallelMode::kLocal;
  ModelConfig model;
  TrainConfig config;
  PipelineOptions options;  // chunks and history (pipeline and hybrid mode)
  StageBounds bounds;       // the layers of every stage
};

class RankTrainer : public EpochTrainer {
 public:
  // grid and backend must outlive the trainer.
  RankTrainer(RankGrid& grid, const kernels::Backend& backend, RankData data,
              const RankSetup& setup);
  EpochMetrics epoch(std::int64_t epoch) override;
  // One exact evaluation pass and nothing else (training with zero epochs). Collective.
  EpochMetrics evaluation() override;
  // The whole model's parameters, gathered from every stage onto every rank. Collective.
  std::vector<std::vector<float>> weights() override;
  // The rows this rank owns, its stage's parameters, optimizer and carried buffers
  // (history, delayed gradients, the smoothing's previous history).
  void save_state(SectionWriter& out) override;
  void load_state(SectionReader& in) override;
  // Records every forward and backward step of this rank's stage into trace (or stops).
  void set_trace(std::vector<ScheduleEvent>* trace) { trace_ = trace; }

 private:
  bool last_stage() const { return grid_.stage() + 1 == grid_.stages(); }
  bool pipelined() const {
    return setup_.mode == ParallelMode::kPipeline || setup_.mode == ParallelMode::kHybrid;
  }
  StagePasses passes() { return {grid_.data_pipe(), layout_.chunk_count(), wire_, trace_}; }
  void begin_wire_passes(std::int64_t epoch, int pass);
  void set_initial_weights();
  double train_passes(std::int64_t epoch, const std::vector<Block>& blocks,
                      const std::vector<int>& order, bool& skipped);
  void reduce_gradients();
  double chunk_loss(const Block& b);
  std::array<double, 4> evaluate(std::int64_t epoch);
  void smooth_history();

  RankGrid& grid_;
  const kernels::Backend& backend_;
  RankSetup setup_;
  RowLayout layout_;
  std::vector<Block> whole_;  // one block of every owned row
  std::optional<StageHalo> halo_;
  StageWire wire_;  // stage rows' format
  BlockRows rows_;
  std::shared_ptr<const FeatureMatrix> host_features_;  // what features_ may read in place
  std::optional<Features> features_;                    // first stage only
  StageLabels labels_;  // host copies: the counts, and what labels_on_backend_ was made from
  LabelsOnBackend labels_on_backend_;
  std::unique_ptr<Stage> stage_;
  Adam optimizer_;
  std::vector<kernels::Tensor> previous_history_;  // smoothing: last epoch's blended history
  std::vector<ScheduleEvent>* trace_ = nullptr;
  double train_count_ = 0;
  std::vector<std::int64_t> stage_tensors_;  // parameter tensors of each stage
  int output_layer_ = 0;                     // the layer whose output this stage sends
  Diagnosis diagnosis_;                      // --diagnose: this epoch's, this stage's share
};

}  // namespace strata
