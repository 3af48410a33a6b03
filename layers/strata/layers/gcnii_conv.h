// The dense part of one GCNII convolution, given the aggregation z = Â p:
//   s = (1 - alpha) z + alpha h0          (initial residual)
//   y = (1 - beta) s + beta s W           (identity mapping), beta = log(lambda / l + 1)
// ReLU and dropout belong to the model. Like Linear it keeps no activations, so the
// pipeline stages can run it block by block.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/layers/parameter.h"

namespace strata {

class GcniiConv {
 public:
  // layer counts from 1 (it sets beta and keys W's Glorot draw with the seed).
  GcniiConv(int width, float alpha, float lambda, std::uint64_t seed, int layer);

  static float beta_of(float lambda, int layer);

  // z_to_s holds z on entry and s on return; y = (1 - beta) s + beta s W.
  void forward(MatrixView z_to_s, ConstMatrixView h0, MatrixView y) const;
  // From grad_y = d loss / d y (after the model's ReLU backward): dW += beta sᵀ grad_y,
  // grad_h0 += alpha ds and grad_z = (1 - alpha) ds, ds = (1 - beta) grad_y + beta grad_y Wᵀ.
  // grad_y is scaled in place (it is consumed).
  void backward(ConstMatrixView s, MatrixView grad_y, MatrixView grad_h0, MatrixView grad_z);

  void cast_gradients();
  void zero_grad();
  ParameterList parameters();
  float alpha() const { return alpha_; }
  float beta() const { return beta_; }
  Matrix& weight() { return weight_; }

 private:
  float alpha_, beta_;
  Matrix weight_, weight_grad_;
  std::vector<double> weight_sum_;
};

}  // namespace strata
