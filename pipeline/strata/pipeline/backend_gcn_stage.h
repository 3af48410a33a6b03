// GcnStage's twin on a kernels::Backend (backend_stage.h): layers [first, last) of the
// GCN, with the same per-layer buffers P, Z, Y, G and the same product order.
#pragma once
#include <vector>

#include "strata/pipeline/backend_stage.h"

namespace strata {

class BackendGcnStage : public BackendStage {
 public:
  BackendGcnStage(const BackendStageSetup& setup, int first, int last);

  void begin_epoch(std::int64_t epoch, bool training) override;
  MatrixView input_rows(const ChunkBlock& b) override { return rows(input_raw_, b); }
  void forward(const ChunkBlock& b) override;
  ConstMatrixView output_rows(const ChunkBlock& b) const override {
    return rows(layers_.back().y, b);
  }
  MatrixView output_grad_rows(const ChunkBlock& b) override { return rows(output_grad_, b); }
  void backward(const ChunkBlock& b) override;
  ConstMatrixView input_grad_rows(const ChunkBlock& b) const override {
    return rows(input_grad_, b);
  }
  void end_backward() override;

  std::vector<kernels::Tensor*> history_buffers() override;
  std::vector<kernels::Tensor*> carried_buffers() override;

 private:
  struct Layer {
    int index;
    bool transform_after;        // Y = (Â P) W, P the dropped input; else P = X W, Y = Â P
    std::size_t weight;          // the tensor of W in parameters_; b follows it
    kernels::Tensor p, z, y, g;  // as GcnStage's
  };
  void prepare_layer0();
  MatrixView input_of(Layer& layer, const ChunkBlock& b);
  void forward_layer(Layer& layer, const ChunkBlock& b);
  void backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y);
  void transformed_input_grad(Layer& layer, const ChunkBlock& b, MatrixView grad);

  int first_, last_;
  std::vector<int> widths_;
  std::vector<Layer> layers_;
  kernels::Tensor input_raw_;    // stage > 0: received rows before dropout
  kernels::Tensor output_grad_;  // d loss / d Y of the last layer
  kernels::Tensor input_grad_;   // stage > 0: d loss / d raw input
};

}  // namespace strata
