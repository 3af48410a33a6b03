// A pipeline stage of the plain GCN: layers [first, last). Per layer it keeps full-size
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
#include "strata/kernels/sparse_features.h"
#include "strata/layers/gcn_layer.h"
#include "strata/pipeline/pipeline_stage.h"
#include "strata/pipeline/stage_halo.h"

namespace strata {

class GcnStage : public PipelineStage {
 public:
  // features: the input features in chunk order (stage with layer 0 only, else null).
  GcnStage(const ModelConfig& model, int first, int last, const ChunkLayout& layout,
           const FeatureMatrix* features, StaleGrad stale, StageHalo* halo);

  void begin_epoch(std::int64_t epoch, bool training) override;
  MatrixView input_rows(const ChunkBlock& b) override;
  void forward(const ChunkBlock& b) override;
  ConstMatrixView output_rows(const ChunkBlock& b) const override;
  MatrixView output_grad_rows(const ChunkBlock& b) override;
  void backward(const ChunkBlock& b) override;
  ConstMatrixView input_grad_rows(const ChunkBlock& b) const override;
  void end_backward() override;

  ParameterList parameters() override;
  void zero_grad() override;
  std::vector<Matrix*> history_buffers() override;
  std::vector<Matrix*> carried_buffers() override;

 private:
  struct Layer {
    GcnLayer params;
    int index;
    bool transform_after;  // Y = (Â P) W, P the dropped input; else P = X W, Y = Â P
    // p, g: every row Â reads (with the halo); z: Â P, or with P = X W (layers > 0) the
    // dropped input X; y: the output. Chunk order.
    Matrix p, z, y, g;
  };
  void prepare_layer0();
  ChunkBlock owned_rows() const;  // every row this rank computes (all but the halo)
  MatrixView input_of(Layer& layer, const ChunkBlock& b);
  void forward_layer(Layer& layer, const ChunkBlock& b);
  void transformed_input_grad(Layer& layer, const ChunkBlock& b, MatrixView grad);
  void backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y);
  bool dropping() const { return training_ && model_.dropout > 0.0f; }
  void drop(MatrixView rows, const ChunkBlock& b, int layer) const;

  ModelConfig model_;
  int first_, last_;
  std::vector<int> widths_;
  const ChunkLayout& layout_;
  const FeatureMatrix* features_;
  StaleGrad stale_;
  StageHalo* halo_;  // hybrid mode: the exchange with this stage's other parts; else null
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
