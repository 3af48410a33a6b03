// A pipeline stage: a run of consecutive layers computed chunk by chunk over every
// vertex, in chunk order (chunk_layout.h). A stage keeps full-size per-layer buffers, so
// a row of a chunk that has not run yet this epoch holds its last value: the history.
// The schedule (pipeline_schedule.h) moves the rows between stages; a stage only computes.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/datasets/feature_matrix.h"
#include "strata/layers/model.h"
#include "strata/layers/parameter.h"
#include "strata/pipeline/chunk_layout.h"

namespace strata {

// What happens to gradient that reaches a row whose backward already ran this epoch
// (an edge read from history): dropped, or added to that row's gradient next epoch.
enum class StaleGrad { kDrop, kDelay };

// The compute flow of a stage, which the schedule's passes drive (stage_passes.h). The
// views it hands out are in the stage's memory: the host's, or a kernels::Backend's.
class StageFlow {
 public:
  virtual ~StageFlow() = default;

  virtual void begin_epoch(std::int64_t epoch, bool training) = 0;
  // Stage > 0: the previous stage's output rows of block b go here before forward(b).
  virtual MatrixView input_rows(const ChunkBlock& b) = 0;
  virtual void forward(const ChunkBlock& b) = 0;
  // The rows forward(b) produced: the next stage's input, or logits on the last stage.
  virtual ConstMatrixView output_rows(const ChunkBlock& b) const = 0;
  // d loss / d output rows of block b go here before backward(b).
  virtual MatrixView output_grad_rows(const ChunkBlock& b) = 0;
  virtual void backward(const ChunkBlock& b) = 0;
  // Stage > 0: d loss / d input rows of block b, after backward(b).
  virtual ConstMatrixView input_grad_rows(const ChunkBlock& b) const = 0;
  // Finishes the epoch's gradients (those that need every block), then the float casts.
  virtual void end_backward() = 0;
};

// A stage whose tensors are host Matrices, with gradients summed in double.
class PipelineStage : public StageFlow {
 public:
  virtual ParameterList parameters() = 0;
  virtual void zero_grad() = 0;
  // The full-size buffers whose rows later chunks read as history (the smoothing option
  // blends them between epochs).
  virtual std::vector<Matrix*> history_buffers() = 0;
  // Every buffer whose rows the next epoch reads before writing them: the history, and
  // with StaleGrad::kDelay the gradient accumulators (a checkpoint saves these).
  virtual std::vector<Matrix*> carried_buffers() = 0;
};

class StageHalo;

// Layers [first, last) of the model's graph convolutions. features: in chunk order, for
// the stage with layer 0 only (else null). halo: hybrid mode only (else null); the
// layout's Â then has halo columns after its rows, and the buffers Â reads get halo rows.
std::unique_ptr<PipelineStage> make_pipeline_stage(const ModelConfig& model, int first, int last,
                                                   const ChunkLayout& layout,
                                                   const FeatureMatrix* features, StaleGrad stale,
                                                   StageHalo* halo = nullptr);

}  // namespace strata
