#include "strata/layers/gcnii_conv.h"

#include <algorithm>
#include <cmath>

#include "strata/kernels/kernels.h"
#include "strata/layers/init.h"

namespace strata {

GcniiConv::GcniiConv(int width, float alpha, float lambda, std::uint64_t seed, int layer)
    : alpha_(alpha),
      beta_(beta_of(lambda, layer)),
      weight_(width, width),
      weight_grad_(width, width),
      weight_sum_(static_cast<std::size_t>(width) * width, 0.0) {
  STRATA_CHECK(width >= 1 && layer >= 1, "GcniiConv: width ", width, ", layer ", layer);
  glorot_uniform(weight_.view(), seed, layer);
}

float GcniiConv::beta_of(float lambda, int layer) {
  return static_cast<float>(std::log(static_cast<double>(lambda) / layer + 1.0));
}

void GcniiConv::forward(MatrixView z_to_s, ConstMatrixView h0, MatrixView y) const {
  kernels::scale(z_to_s, 1.0f - alpha_);
  kernels::axpy(alpha_, h0, z_to_s);
  kernels::gemm(false, false, beta_, z_to_s, weight_.view(), 0.0f, y);
  kernels::axpy(1.0f - beta_, z_to_s, y);
}

void GcniiConv::backward(ConstMatrixView s, MatrixView grad_y, MatrixView grad_h0,
                         MatrixView grad_z) {
  kernels::gemm(false, true, beta_, grad_y, weight_.view(), 0.0f, grad_z);
  kernels::axpy(1.0f - beta_, grad_y, grad_z);  // grad_z holds ds
  kernels::axpy(alpha_, grad_z, grad_h0);
  kernels::scale(grad_z, 1.0f - alpha_);
  kernels::scale(grad_y, beta_);
  kernels::gemm_tn_accumulate(s, grad_y, weight_sum_);
}

void GcniiConv::cast_gradients() {
  kernels::cast_to_float(weight_sum_, weight_grad_.storage());
}

void GcniiConv::zero_grad() {
  weight_grad_.fill(0.0f);
  std::fill(weight_sum_.begin(), weight_sum_.end(), 0.0);
}

ParameterList GcniiConv::parameters() {
  return {{weight_.storage(), weight_grad_.storage(), weight_sum_, true}};
}

}  // namespace strata
