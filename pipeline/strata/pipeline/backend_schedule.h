// PipelineSchedule's twin for stages on a kernels::Backend (backend_stage.h): the same
// epoch (forward of the chunks through the stages, backward in reverse, one optimizer
// step per stage, then an exact evaluation pass that refreshes the history) with every
// tensor in the backend's memory. Stage transfers, halo rows and the group's gradient
// all-reduce go through the data communicators (over the backend's memory: NCCL, device
// staging, or for the CPU backend the host communicators themselves); metrics, the NaN
// agreement and the weights gather go through the host ones.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/layers/backend_model.h"
#include "strata/pipeline/backend_stage.h"
#include "strata/pipeline/backend_state.h"
#include "strata/pipeline/pipeline_schedule.h"

namespace strata {

// The communicators over the backend's memory, one for each of StageGrid's, and the halo.
struct BackendGrid {
  Communicator* pipe = nullptr;   // required
  Communicator* group = nullptr;  // hybrid only
  BackendStageHalo* halo = nullptr;
};

class BackendPipelineSchedule : public EpochTrainer {
 public:
  // comm: the whole job (host). grid: the host pipe and group (hybrid; none in pipeline
  // mode, where comm is the pipe). With a group, layout holds this rank's part.
  BackendPipelineSchedule(Communicator& comm, const kernels::Backend& backend, const Dataset& data,
                          const TrainConfig& config, const PipelineOptions& options,
                          const StageBounds& bounds, ChunkLayout layout, StageGrid grid,
                          BackendGrid data_grid);
  EpochMetrics epoch(std::int64_t epoch) override;
  EpochMetrics evaluation() override;
  std::vector<std::vector<float>> weights() override;
  void save_state(SectionWriter& out) override;
  void load_state(SectionReader& in) override;
  void set_trace(std::vector<ScheduleEvent>* trace) { trace_ = trace; }

 private:
  using Blocks = std::vector<ChunkBlock>;
  bool last_stage() const { return rank_ + 1 == ranks_; }
  StagePasses passes() const { return {*data_.pipe, layout_.chunks(), trace_}; }
  double train_passes(std::int64_t epoch, const Blocks& blocks, const std::vector<int>& order,
                      bool& skipped);
  double chunk_loss(const ChunkBlock& b);
  std::array<double, 4> evaluate(std::int64_t epoch);
  void smooth_history();
  ByteCounters counters() const;  // every distinct communicator's together

  Communicator& comm_;
  Communicator& pipe_;   // host: the whole job, or this part's column
  Communicator* group_;  // host, hybrid: this stage's parts
  BackendGrid data_;
  const kernels::Backend& backend_;
  int rank_, ranks_;  // stage, stages
  TrainConfig config_;
  PipelineOptions options_;
  ChunkLayout layout_;
  std::vector<ChunkBlock> whole_;  // one block, all rows of layout_.a_hat
  BackendBlocks blocks_;
  FeatureMatrix features_;  // chunk order; stage 0 only
  StageLabels labels_;      // host copies: the counts, and what labels_on_backend_ was made from
  LabelsOnBackend labels_on_backend_;
  std::unique_ptr<BackendStage> stage_;
  BackendAdam optimizer_;
  std::vector<kernels::Tensor> previous_history_;  // smoothing: last epoch's blended history
  std::vector<ScheduleEvent>* trace_ = nullptr;
  double train_count_ = 0;
  std::vector<std::int64_t> stage_tensors_;  // parameter tensors of each stage
  std::vector<std::string> names_;           // of this stage's parameters
  int output_layer_ = 0;                     // the layer whose output this stage sends
  OnNan on_nan_ = OnNan::kStop;
};

}  // namespace strata
