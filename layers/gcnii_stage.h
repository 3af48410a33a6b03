// A stage of GCNII (Chen et al. 2020, "Simple and Deep Graph Convolutional Networks"), as
// PyG's GCN2Conv example:
//   h0 = relu(dropout(x) W_in + b_in)
//   h_l = relu(conv_l(Â dropout(h_{l-1}), h0)),  l = 1..L,  h_0 = h0
//   conv_l(z, h0): s = (1 - alpha) z + alpha h0 (initial residual),
//                  y = (1 - beta_l) s + beta_l s W_l, beta_l = log(lambda / l + 1) (identity map)
//   logits = dropout(h_L) W_out + b_out
// Graph layer l - 1 is conv l; the first stage also holds the input linear layer, the last
// the output one. Boundary rows carry [h | h0] forward and [dh | dh0] backward. Dropout
// masks are keyed by layer 0 (input), l (conv l) and L + 1 (output).
#pragma once
#include <optional>
#include <vector>

#include "strata/layers/stage.h"

namespace strata {

class GcniiStage : public Stage {
 public:
  GcniiStage(const StageSetup& setup, int first, int last);

  static float beta_of(float lambda, int layer);

  void begin_epoch(std::int64_t epoch, bool training) override;
  MatrixView input_rows(const Block& b) override { return rows(boundary_in_, b); }
  void forward(const Block& b) override;
  ConstMatrixView output_rows(const Block& b) const override;
  MatrixView output_grad_rows(const Block& b) override;
  void backward(const Block& b) override;
  ConstMatrixView input_grad_rows(const Block& b) const override { return rows(grad_in_, b); }
  void end_backward() override;

  std::vector<kernels::Tensor*> history_buffers() override;
  std::vector<kernels::Tensor*> carried_buffers() override;
  std::vector<const kernels::Tensor*> layer_outputs() const override;

 private:
  struct Conv {
    std::size_t weight;  // W's tensor in parameters_
    int layer;           // 1-based
    float beta;
    kernels::Tensor p, s, y, g;  // P = dropout(h) (columns(), the history), s, relu(y), d/dP
    // beta W + (1 - beta) I, this pass's: the identity mapping folded into one product.
    kernels::Tensor mapped;
  };
  void map_weights();
  bool first_stage() const { return input_.has_value(); }
  bool last_stage() const { return output_.has_value(); }
  void prepare_input();
  void forward_conv(std::size_t j, const Block& b, ConstMatrixView h);
  kernels::DropInto next_input(std::size_t j, const Block& b);
  // y[b] from the exchanged P: aggregation, initial residual, identity-mapped W, ReLU.
  void aggregate_conv(Conv& conv, const Block& b, const kernels::DropInto& next);
  void forward_output(const Block& b, ConstMatrixView h);
  void start_backward(const Block& b, MatrixView grad_h, MatrixView grad_h0);
  void backward_conv(const Conv& conv, const Block& b, MatrixView grad_h, MatrixView grad_h0,
                     MatrixView grad_z, int owed);
  bool propagate_conv(Conv& conv, const Block& b, ConstMatrixView grad_z, MatrixView grad_h);
  void finish_input(const Block& b, MatrixView grad_h, ConstMatrixView grad_h0);
  // Whether conv 1's gradient waits for every block (chunked), and that wait's end.
  bool defers_first_conv() const { return first_stage() && !whole_rows_only(); }
  void finish_first_conv();
  // y = x W + b for the linear layer whose W is tensor t (b is t + 1); dW, db += its grads.
  void linear(std::size_t t, ConstMatrixView x, MatrixView y) const;
  void linear_backward(std::size_t t, ConstMatrixView x, ConstMatrixView grad_y);

  int hidden_;
  std::optional<std::size_t> input_, output_;  // tensors of W_in, W_out
  std::vector<Conv> convs_;
  kernels::Tensor h0_;                        // N x H
  kernels::Tensor identity_;                  // H x H
  kernels::Tensor boundary_in_, grad_in_;     // stage > 0: [h | h0] received, [dh | dh0] sent
  kernels::Tensor boundary_out_, grad_out_;   // not last: [h | h0] sent, [dh | dh0] received
  kernels::Tensor q_, logits_, grad_logits_;  // last stage: dropout(h_L), logits, d/d logits
  kernels::Tensor g0_;                        // first stage: d loss / d (x W_in + b_in)
};

}  // namespace strata
