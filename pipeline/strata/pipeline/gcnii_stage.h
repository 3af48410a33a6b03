// A pipeline stage of GCNII (layers/gcnii_model.h): convolutions [first, last), plus the
// input linear layer on the first stage and the output linear layer on the last. Every
// conv needs h0, so a boundary row carries [h | h0] (width 2H) forward and [dh | dh0]
// backward; each stage adds its convs' dh0 before passing it on, and the first stage
// adds it to the gradient of h0 = relu(x W_in + b_in).
// Per conv, full-size buffers in chunk order: P = dropout(h_{l-1}) (history for chunks
// not yet run; conv 1's P depends on the features only and is computed whole), S = (1 - alpha) Â P
// + alpha h0, Y = the conv's ReLU output, G = the gradient accumulated into P.
#pragma once
#include <optional>
#include <vector>

#include "strata/kernels/sparse_features.h"
#include "strata/layers/gcnii_conv.h"
#include "strata/layers/linear.h"
#include "strata/pipeline/pipeline_stage.h"
#include "strata/pipeline/stage_halo.h"

namespace strata {

class GcniiStage : public PipelineStage {
 public:
  GcniiStage(const ModelConfig& model, int first, int last, const ChunkLayout& layout,
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
  struct Conv {
    GcniiConv params;
    int layer;  // 1-based, as in GcniiModel
    Matrix p, s, y, g;
  };
  bool first_stage() const { return input_.has_value(); }
  bool last_stage() const { return output_.has_value(); }
  void prepare_input();
  void forward_input(const ChunkBlock& b);
  void forward_conv(Conv& conv, const ChunkBlock& b, ConstMatrixView h);
  void forward_output(const ChunkBlock& b, ConstMatrixView h);
  MatrixView backward_output(const ChunkBlock& b);
  void backward_conv(Conv& conv, const ChunkBlock& b, MatrixView grad_h, MatrixView grad_h0);
  void finish_input(const ChunkBlock& b, MatrixView grad_h, ConstMatrixView grad_h0);
  void drop(MatrixView rows, const ChunkBlock& b, int layer) const;
  bool dropping() const { return training_ && model_.dropout > 0.0f; }

  ModelConfig model_;
  int hidden_;
  const ChunkLayout& layout_;
  const FeatureMatrix* features_;
  StaleGrad stale_;
  StageHalo* halo_;  // hybrid mode only, else null
  std::optional<Linear> input_, output_;
  std::vector<Conv> convs_;
  std::optional<SparseFeatures> sparse_;
  Matrix dropped_features_;          // dense input only
  Matrix h0_;                        // N x H
  Matrix boundary_in_, grad_in_;     // stage > 0: [h | h0] received, [dh | dh0] sent
  Matrix boundary_out_, grad_out_;   // not last: [h | h0] sent, [dh | dh0] received
  Matrix q_, logits_, grad_logits_;  // last stage: dropout(h_L), logits, d loss / d logits
  Matrix g0_;                        // first stage: d loss / d (x W_in + b_in)
  std::vector<float> scratch_h_, scratch_h0_, scratch_z_, scratch_touched_;
  std::int64_t epoch_ = 0;
  bool training_ = false;
};

}  // namespace strata
