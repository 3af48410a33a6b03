#include "strata/layers/linear.h"

#include <algorithm>

#include "strata/kernels/kernels.h"
#include "strata/layers/init.h"

namespace strata {

Linear::Linear(int in, int out, std::uint64_t seed, int layer)
    : weight_(in, out),
      weight_grad_(in, out),
      bias_(static_cast<std::size_t>(out), 0.0f),
      bias_grad_(static_cast<std::size_t>(out), 0.0f),
      weight_sum_(static_cast<std::size_t>(in) * out, 0.0),
      bias_sum_(static_cast<std::size_t>(out), 0.0) {
  STRATA_CHECK(in >= 1 && out >= 1, "Linear: widths ", in, " -> ", out);
  glorot_uniform(weight_.view(), seed, layer);
}

void Linear::forward(ConstMatrixView x, MatrixView y) const {
  kernels::gemm(false, false, 1.0f, x, weight_.view(), 0.0f, y);
  kernels::add_bias_rows(y, bias_);
}

void Linear::forward(CsrView x, MatrixView y) const {
  kernels::spmm(x, weight_.view(), y);
  kernels::add_bias_rows(y, bias_);
}

void Linear::accumulate(ConstMatrixView x, ConstMatrixView grad_y) {
  kernels::gemm_tn_accumulate(x, grad_y, weight_sum_);
  kernels::column_sums_accumulate(grad_y, bias_sum_);
}

void Linear::accumulate_sparse(CsrView x_transposed, ConstMatrixView grad_y) {
  kernels::spmm_accumulate(x_transposed, grad_y, weight_sum_);
  kernels::column_sums_accumulate(grad_y, bias_sum_);
}

void Linear::input_grad(ConstMatrixView grad_y, MatrixView grad_x) const {
  kernels::gemm(false, true, 1.0f, grad_y, weight_.view(), 0.0f, grad_x);
}

void Linear::cast_gradients() {
  kernels::cast_to_float(weight_sum_, weight_grad_.storage());
  kernels::cast_to_float(bias_sum_, bias_grad_);
}

void Linear::zero_grad() {
  weight_grad_.fill(0.0f);
  std::fill(bias_grad_.begin(), bias_grad_.end(), 0.0f);
  std::fill(weight_sum_.begin(), weight_sum_.end(), 0.0);
  std::fill(bias_sum_.begin(), bias_sum_.end(), 0.0);
}

ParameterList Linear::parameters() {
  return {{weight_.storage(), weight_grad_.storage(), weight_sum_, true},
          {bias_, bias_grad_, bias_sum_, true}};
}

}  // namespace strata
