// One pipeline stage: the consecutive GCN layers [first, last) computed chunk by chunk
// over every vertex (in chunk order, chunk_layout.h). Per layer it keeps full-size
// buffers: the aggregated input P (this epoch's rows for chunks already run, the last
// pass's rows, i.e. history, for the others), its aggregation Z, the output Y and the
// gradient accumulator G. Layer 0 reads the static features, so its P is computed whole
// at the start of the epoch and reads no history at all.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "strata/datasets/feature_matrix.h"
#include "strata/layers/gcn_layer.h"
#include "strata/layers/gcn_model.h"
#include "strata/layers/sparse_features.h"
#include "strata/pipeline/chunk_layout.h"

namespace strata {

enum class StaleGrad { kDrop, kDelay };

class PipelineStage {
 public:
  // features: the input features in chunk order (stage with layer 0 only, else null).
  PipelineStage(const GcnConfig& model, int first, int last, const ChunkLayout& layout,
                const FeatureMatrix* features, StaleGrad stale);

  int first() const { return first_; }
  int last() const { return last_; }

  void begin_epoch(std::int64_t epoch, bool training);
  // Stage > 0: the raw input rows of block b (the previous stage's output) go here.
  MatrixView input_rows(const ChunkBlock& b);
  void forward(const ChunkBlock& b);
  ConstMatrixView output_rows(const ChunkBlock& b) const;
  // d loss / d output rows of block b go here before backward(b).
  MatrixView output_grad_rows(const ChunkBlock& b);
  void backward(const ChunkBlock& b);
  // d loss / d raw input rows of block b, after backward(b) (stage > 0).
  ConstMatrixView input_grad_rows(const ChunkBlock& b) const;
  // Finishes the gradients: layer 0's weight (it needs every block), then the float casts.
  void end_backward();

  ParameterList parameters();
  void zero_grad();

 private:
  struct Layer {
    GcnLayer params;
    int index;
    bool transform_after;  // Y = (Â P) W, P the dropped input; else P = X W (layer 0)
    Matrix p, z, y, g;     // all N rows, chunk order
  };
  void prepare_layer0();
  void forward_layer(Layer& layer, const ChunkBlock& b);
  void backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y);
  void scatter_gradient(Layer& layer, const ChunkBlock& b, ConstMatrixView grad_z);
  void take_gradient(Layer& layer, const ChunkBlock& b, MatrixView out);
  std::span<const GlobalId> ids(const ChunkBlock& b) const;
  bool dropping() const { return training_ && model_.dropout > 0.0f; }
  void drop(MatrixView rows, const ChunkBlock& b, int layer) const;

  GcnConfig model_;
  int first_, last_;
  std::vector<int> widths_;
  const ChunkLayout& layout_;
  const FeatureMatrix* features_;
  StaleGrad stale_;
  std::vector<Layer> layers_;
  std::optional<SparseFeatures> sparse_;
  Matrix dropped_features_;  // dense features after dropout (dense input only)
  Matrix input_raw_;         // stage > 0: received rows before dropout
  Matrix output_grad_;       // d loss / d Y of the last layer
  Matrix input_grad_;        // stage > 0: d loss / d raw input
  std::vector<float> scratch_y_, scratch_z_, scratch_touched_;  // per-chunk backward scratch
  std::int64_t epoch_ = 0;
  bool training_ = false;
};

}  // namespace strata
