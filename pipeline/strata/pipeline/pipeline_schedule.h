// The per-epoch schedule of the pipeline mode on one rank: forward of the chunks through
// the stages (stage s runs chunk c once stage s-1 has sent it, so stage s works on chunk
// c while s-1 works on c+1), backward in reverse chunk order, one optimizer step per
// stage, then an exact evaluation pass (one chunk) that also refreshes the history.
#pragma once
#include <array>
#include <optional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/layers/optimizer.h"
#include "strata/pipeline/gradient_reducer.h"
#include "strata/pipeline/numeric_guard.h"
#include "strata/pipeline/pipeline_stage.h"
#include "strata/pipeline/schedule_common.h"
#include "strata/pipeline/stage_halo.h"
#include "strata/pipeline/stage_passes.h"
#include "strata/pipeline/stage_split.h"
#include "strata/pipeline/train_config.h"
#include "strata/pipeline/training_loop.h"

namespace strata {

// Hybrid mode: this rank's place in the S x G grid of ranks. Pipeline mode: none.
struct StageGrid {
  Communicator* pipe = nullptr;   // this part's ranks of every stage, rank = stage
  Communicator* group = nullptr;  // this stage's ranks, rank = part
  StageHalo* halo = nullptr;      // the exchange within group
};

class PipelineSchedule : public EpochTrainer {
 public:
  // comm: the whole job. With a grid, layout holds this rank's part (hybrid_layout.h).
  PipelineSchedule(Communicator& comm, const Dataset& data, const TrainConfig& config,
                   const PipelineOptions& options, const StageBounds& bounds, ChunkLayout layout,
                   StageGrid grid = {});
  EpochMetrics epoch(std::int64_t epoch) override;
  // One exact evaluation pass and nothing else (training with zero epochs). Collective.
  EpochMetrics evaluation() override;
  // The whole model's parameters, gathered from every stage onto every rank. Collective.
  std::vector<std::vector<float>> weights() override;
  // This stage's parameters, optimizer and carried buffers (history, delayed gradients,
  // the smoothing's previous history).
  void save_state(SectionWriter& out) override;
  void load_state(SectionReader& in) override;
  // Records every forward and backward step of this rank's stage into trace (or stops).
  void set_trace(std::vector<ScheduleEvent>* trace) { trace_ = trace; }

 private:
  bool last_stage() const { return rank_ + 1 == ranks_; }
  using Blocks = std::vector<ChunkBlock>;
  StagePasses passes() const { return {pipe_, layout_.chunks(), trace_}; }
  std::array<double, 4> evaluate(std::int64_t epoch);
  double chunk_loss(const ChunkBlock& b);
  double forward_pass(const Blocks& blocks, const std::vector<int>& order, bool training);
  void smooth_history();
  void count_stage_tensors();

  ByteCounters counters() const;  // the job's, the pipe's and the group's together

  Communicator& comm_;
  Communicator& pipe_;   // stage neighbours: the whole job, or this part's column
  Communicator* group_;  // hybrid: this stage's parts
  std::optional<GradientReducer> reducer_;  // hybrid with more than one part
  int rank_, ranks_;                        // stage, stages
  TrainConfig config_;
  PipelineOptions options_;
  ChunkLayout layout_;
  std::vector<ChunkBlock> whole_;  // one block, all rows of layout_.a_hat
  FeatureMatrix features_;         // chunk order; stage 0 only
  StageLabels labels_;
  std::unique_ptr<PipelineStage> stage_;
  Adam optimizer_;
  std::vector<Matrix> previous_history_;
  std::vector<ScheduleEvent>* trace_ = nullptr;  // smoothing only: last epoch's blended history
  double train_count_ = 0;
  std::vector<std::int64_t> stage_tensors_;  // parameter tensors of each stage
  std::size_t first_tensor_ = 0;             // this stage's first, in the whole model
  std::vector<std::string> names_;           // of this stage's parameters
  int output_layer_ = 0;                     // the layer whose output this stage sends
  OnNan on_nan_ = OnNan::kStop;
};

}  // namespace strata
