// A stage whose boundary rows are its own layers' rows (ConvStage, GatStage): it receives
// width(first) columns a row from the stage before it and sends width(last), and the
// gradients of both go back the same way (GCNII's stages carry [h | h0] instead).
#pragma once
#include "strata/layers/stage.h"

namespace strata {

// What a RowStage gives buffers of their own: the received rows (else the stage points
// input_raw_ at its first layer's input, where they are dropped in place), and the output
// and input gradients (else the stage points them into memory it holds anyway).
struct RowBuffers {
  bool input = true, gradients = true;
};

class RowStage : public Stage {
 public:
  RowStage(const StageSetup& setup, int first, int last, RowBuffers owned = {})
      : Stage(setup, first, last) {
    const std::int64_t n = graph_.rows();
    if (first > 0 && owned.input) input_raw_ = tensor(n, model_.width(first));
    if (!owned.gradients) return;
    if (first > 0) input_grad_ = tensor(n, model_.width(first));
    output_grad_ = tensor(n, model_.width(last));
  }
  MatrixView input_rows(const Block& b) override { return rows(input_raw_, b); }
  MatrixView output_grad_rows(const Block& b) override { return rows(output_grad_, b); }
  ConstMatrixView input_grad_rows(const Block& b) const override { return rows(input_grad_, b); }

 protected:
  kernels::Tensor input_raw_;    // stage > 0: received rows before dropout
  kernels::Tensor output_grad_;  // d loss / d Y of the last layer (the backward's first dY)
  kernels::Tensor input_grad_;   // stage > 0: d loss / d the received rows
};

}  // namespace strata
