// Pipeline stages on a kernels::Backend (what --device cuda runs in modes pipeline and
// hybrid). BackendGcnStage and BackendGcniiStage compute what GcnStage and GcniiStage
// compute, step for step, with their full-size buffers (the history included), their
// parameters and gradients in the backend's memory. Gradients are summed in float (in
// double on the CPU stages), so the two agree to float rounding, not bit for bit. Sparse
// features stay sparse. Every tensor starts at zero, as a host Matrix does, so the history of
// the first epoch reads zeros on every backend.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "strata/datasets/feature_matrix.h"
#include "strata/kernels/backend.h"
#include "strata/layers/backend_features.h"
#include "strata/layers/flat_parameters.h"
#include "strata/pipeline/pipeline_stage.h"

namespace strata {

class BackendStageHalo;

// The layout's blocks as the backend multiplies them: per block, Â's rows (copied in on
// the first forward) and its transposed rows with the columns they touch (on the first
// backward).
class BackendBlocks {
 public:
  BackendBlocks(const ChunkLayout& layout, const kernels::Backend& backend);
  // out = Â[b's rows, :] · x, x holding every row Â reads.
  void aggregate(const ChunkBlock& b, ConstMatrixView x, MatrixView out);
  // g[touched] += Â[b's rows, touched]ᵀ · grad (stage_buffers.h's scatter_gradient).
  void scatter_gradient(const ChunkBlock& b, ConstMatrixView grad, MatrixView g);
  // The global ids of b's rows, in backend memory (they key the dropout masks).
  const GlobalId* ids(const ChunkBlock& b) const { return ids_.as<GlobalId>() + b.begin; }

 private:
  struct Entry {
    std::unique_ptr<kernels::SparseMatrix> rows, transposed;
    kernels::Buffer touched;
    std::int64_t touched_count = 0;
  };
  Entry& entry(const ChunkBlock& b);

  const ChunkLayout& layout_;
  const kernels::Backend& backend_;
  kernels::Buffer ids_;
  std::vector<Entry> entries_;  // chunk c at c, the block of every row at K
  kernels::Buffer scratch_;
};

// What every backend stage is built from. The references must outlive the stage.
struct BackendStageSetup {
  const kernels::Backend& backend;
  ModelConfig model;
  const ChunkLayout& layout;
  BackendBlocks& blocks;
  const FeatureMatrix* features;  // chunk order, the stage with layer 0 only (else null)
  StaleGrad stale = StaleGrad::kDrop;
  BackendStageHalo* halo = nullptr;  // hybrid mode with several parts only
};

class BackendStage : public StageFlow {
 public:
  // shapes: the stage's run of the model's parameter tensors, [first, first + count).
  BackendStage(const BackendStageSetup& setup, std::pair<std::size_t, std::size_t> tensors);

  FlatParameters& parameters() { return parameters_; }
  // The full-size buffers later chunks read as history, and every buffer the next epoch
  // reads before writing it (the history, and with StaleGrad::kDelay the gradients).
  virtual std::vector<kernels::Tensor*> history_buffers() = 0;
  virtual std::vector<kernels::Tensor*> carried_buffers() = 0;

 protected:
  bool dropping() const { return training_ && model_.dropout > 0.0f; }
  // Every row the stage computes (all but the halo), as one block with no transpose.
  ChunkBlock every_row() const { return {0, layout_.a_hat.rows, {}, {}, -1}; }
  void drop(MatrixView m, const ChunkBlock& b, int layer) const;
  // The features with this pass's input dropout (stage with layer 0 only).
  BackendFeatures& dropped_features();
  // out = g[b], and g[b] restarts at zero (stage_buffers.h's take_gradient).
  void take_gradient(kernels::Tensor& g, const ChunkBlock& b, MatrixView out) const;
  void zero(kernels::Tensor& t) const;
  // A rows x cols view over one of the stage's growing scratch buffers.
  MatrixView scratch(int which, std::int64_t rows, std::int64_t cols);
  kernels::Tensor tensor(std::int64_t rows, std::int64_t cols) const {
    return kernels::Tensor(backend_, rows, cols);
  }

  const kernels::Backend& backend_;
  ModelConfig model_;
  const ChunkLayout& layout_;
  BackendBlocks& blocks_;
  StaleGrad stale_;
  BackendStageHalo* halo_;
  FlatParameters parameters_;
  std::optional<BackendFeatures> features_;
  std::int64_t epoch_ = 0;
  bool training_ = false;

 private:
  std::vector<kernels::Buffer> scratch_;
};

inline MatrixView rows(kernels::Tensor& t, const ChunkBlock& b) {
  return t.view().rows_range(b.begin, b.end);
}
inline ConstMatrixView rows(const kernels::Tensor& t, const ChunkBlock& b) {
  return t.view().rows_range(b.begin, b.end);
}

// A FeatureMatrix in a backend's memory, dense or sparse as it is.
BackendFeatures backend_features(const kernels::Backend& backend, const FeatureMatrix& features);

// The model's parameter tensors that the stage of layers [first, last) holds: [begin, end).
std::pair<std::size_t, std::size_t> stage_tensor_range(const ModelConfig& model, int first,
                                                       int last);

// BackendGcnStage or BackendGcniiStage for layers [first, last), as model.kind says.
std::unique_ptr<BackendStage> make_backend_stage(const BackendStageSetup& setup, int first,
                                                 int last);

}  // namespace strata
