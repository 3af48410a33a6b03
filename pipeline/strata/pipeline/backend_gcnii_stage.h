// GcniiStage's twin on a kernels::Backend (backend_stage.h): convs [first, last), with the
// input linear layer on the first stage and the output linear layer on the last; boundary
// rows carry [h | h0] forward and [dh | dh0] backward, as there.
#pragma once
#include <optional>
#include <vector>

#include "strata/layers/backend_gcnii.h"
#include "strata/pipeline/backend_stage.h"

namespace strata {

class BackendGcniiStage : public BackendStage {
 public:
  BackendGcniiStage(const BackendStageSetup& setup, int first, int last);

  void begin_epoch(std::int64_t epoch, bool training) override;
  MatrixView input_rows(const ChunkBlock& b) override { return rows(boundary_in_, b); }
  void forward(const ChunkBlock& b) override;
  ConstMatrixView output_rows(const ChunkBlock& b) const override;
  MatrixView output_grad_rows(const ChunkBlock& b) override;
  void backward(const ChunkBlock& b) override;
  ConstMatrixView input_grad_rows(const ChunkBlock& b) const override { return rows(grad_in_, b); }
  void end_backward() override;

  std::vector<kernels::Tensor*> history_buffers() override;
  std::vector<kernels::Tensor*> carried_buffers() override;

 private:
  struct Conv {
    BackendGcniiConv params;
    int layer;                   // 1-based, as in GcniiModel
    kernels::Tensor p, s, y, g;  // as GcniiStage's
  };
  bool first_stage() const { return input_.has_value(); }
  bool last_stage() const { return output_.has_value(); }
  void prepare_input();
  void forward_conv(Conv& conv, const ChunkBlock& b, ConstMatrixView h);
  void forward_output(const ChunkBlock& b, ConstMatrixView h);
  void backward_conv(Conv& conv, const ChunkBlock& b, MatrixView grad_h, MatrixView grad_h0);
  void finish_input(const ChunkBlock& b, MatrixView grad_h, ConstMatrixView grad_h0);

  int hidden_;
  std::optional<BackendLinear> input_, output_;
  std::vector<Conv> convs_;
  kernels::Tensor h0_;                        // N x H
  kernels::Tensor boundary_in_, grad_in_;     // stage > 0: [h | h0] received, [dh | dh0] sent
  kernels::Tensor boundary_out_, grad_out_;   // not last: [h | h0] sent, [dh | dh0] received
  kernels::Tensor q_, logits_, grad_logits_;  // last stage: dropout(h_L), logits, d loss / d logits
  kernels::Tensor g0_;                        // first stage: d loss / d (x W_in + b_in)
};

}  // namespace strata
