#include "strata/layers/gcn_layer.h"

#include "strata/kernels/kernels.h"
#include "strata/layers/init.h"

namespace strata {

GcnLayer::GcnLayer(int in, int out, bool bias, std::uint64_t seed, int layer)
    : in_(in),
      out_(out),
      has_bias_(bias),
      weight_(in, out),
      weight_grad_(in, out),
      weight_grad_sum_(static_cast<std::size_t>(in) * out, 0.0) {
  STRATA_CHECK(in >= 1 && out >= 1, "GcnLayer: widths ", in, " -> ", out);
  glorot_uniform(weight_.view(), seed, layer);
  if (has_bias_) {
    bias_.assign(static_cast<std::size_t>(out), 0.0f);
    bias_grad_.assign(static_cast<std::size_t>(out), 0.0f);
    bias_grad_sum_.assign(static_cast<std::size_t>(out), 0.0);
  }
}

void GcnLayer::ensure_shape(Matrix& m, std::int64_t rows, std::int64_t cols) {
  if (m.rows() != rows || m.cols() != cols) m = Matrix(rows, cols);
}

void GcnLayer::check_output(Aggregator& aggregator, ConstMatrixView y) const {
  const std::int64_t rows = aggregator.owned_rows();
  STRATA_CHECK(y.rows == rows && y.cols == out_, "GcnLayer::forward: y is ", y.rows, "x", y.cols,
               ", expected ", rows, "x", out_);
}

void GcnLayer::forward(Aggregator& aggregator, ConstMatrixView x_owned, MatrixView y_owned,
                       int layer) {
  const std::int64_t rows = aggregator.owned_rows();
  STRATA_CHECK(x_owned.rows == rows && x_owned.cols == in_, "GcnLayer::forward: x is ",
               x_owned.rows, "x", x_owned.cols, ", expected ", rows, "x", in_);
  check_output(aggregator, y_owned);
  sparse_input_ = false;
  if (aggregate_first(in_, out_)) {
    forward_aggregate_first(aggregator, x_owned, y_owned, layer);
  } else {
    forward_transform_first(aggregator, x_owned, y_owned, layer);
  }
  if (has_bias_) kernels::add_bias_rows(y_owned, bias_);
  forward_done_ = true;
}

void GcnLayer::forward_aggregate_first(Aggregator& aggregator, ConstMatrixView x, MatrixView y,
                                       int layer) {
  ensure_shape(aggregated_, x.rows, in_);
  aggregator.forward(x, aggregated_.view(), layer);
  kernels::gemm(false, false, 1.0f, aggregated_.view(), weight_.view(), 0.0f, y);
}

void GcnLayer::forward_transform_first(Aggregator& aggregator, ConstMatrixView x, MatrixView y,
                                       int layer) {
  ensure_shape(aggregated_, x.rows, out_);
  kernels::gemm(false, false, 1.0f, x, weight_.view(), 0.0f, aggregated_.view());
  aggregator.forward(aggregated_.view(), y, layer);
  input_ = x;
}

void GcnLayer::forward_sparse(Aggregator& aggregator, CsrView x_owned, CsrView x_transposed,
                              MatrixView y_owned, int layer) {
  STRATA_CHECK(!aggregate_first(in_, out_), "GcnLayer::forward_sparse: ", in_, " -> ", out_,
               " aggregates first");
  STRATA_CHECK(x_owned.rows == aggregator.owned_rows() && x_owned.cols == in_ &&
                   x_transposed.rows == in_ && x_transposed.cols == x_owned.rows,
               "GcnLayer::forward_sparse: x is ", x_owned.rows, "x", x_owned.cols);
  check_output(aggregator, y_owned);
  ensure_shape(aggregated_, x_owned.rows, out_);
  kernels::spmm(x_owned, weight_.view(), aggregated_.view());
  aggregator.forward(aggregated_.view(), y_owned, layer);
  sparse_input_transposed_ = x_transposed;
  sparse_input_ = true;
  if (has_bias_) kernels::add_bias_rows(y_owned, bias_);
  forward_done_ = true;
}

void GcnLayer::backward(Aggregator& aggregator, ConstMatrixView grad_y, MatrixView grad_x,
                        int layer) {
  STRATA_CHECK(forward_done_, "GcnLayer::backward before forward");
  STRATA_CHECK(grad_y.rows == aggregated_.rows() && grad_y.cols == out_,
               "GcnLayer::backward: grad_y is ", grad_y.rows, "x", grad_y.cols);
  STRATA_CHECK(grad_x.data == nullptr || (grad_x.rows == grad_y.rows && grad_x.cols == in_),
               "GcnLayer::backward: grad_x is ", grad_x.rows, "x", grad_x.cols);
  if (has_bias_) kernels::column_sums_accumulate(grad_y, bias_grad_sum_);
  if (aggregate_first(in_, out_)) {
    backward_aggregate_first(aggregator, grad_y, grad_x, layer);
  } else {
    backward_transform_first(aggregator, grad_y, grad_x, layer);
  }
  cast_gradients();
}

void GcnLayer::cast_gradients() {
  kernels::cast_to_float(weight_grad_sum_, weight_grad_.storage());
  kernels::cast_to_float(bias_grad_sum_, bias_grad_);
}

// Y = (Â X) W: dW = (Â X)ᵀ dY, dX = Âᵀ (dY Wᵀ).
void GcnLayer::backward_aggregate_first(Aggregator& aggregator, ConstMatrixView grad_y,
                                        MatrixView grad_x, int layer) {
  kernels::gemm_tn_accumulate(aggregated_.view(), grad_y, weight_grad_sum_);
  if (grad_x.data == nullptr) return;
  ensure_shape(scratch_, grad_y.rows, in_);
  kernels::gemm(false, true, 1.0f, grad_y, weight_.view(), 0.0f, scratch_.view());
  aggregator.backward(scratch_.view(), grad_x, layer);
}

// Y = Â (X W): d(XW) = Âᵀ dY, dW = Xᵀ d(XW), dX = d(XW) Wᵀ.
void GcnLayer::backward_transform_first(Aggregator& aggregator, ConstMatrixView grad_y,
                                        MatrixView grad_x, int layer) {
  ensure_shape(scratch_, grad_y.rows, out_);
  aggregator.backward(grad_y, scratch_.view(), layer);
  if (sparse_input_) {
    STRATA_CHECK(grad_x.data == nullptr, "GcnLayer::backward: no dX for sparse input");
    kernels::spmm_accumulate(sparse_input_transposed_, scratch_.view(), weight_grad_sum_);
    return;
  }
  kernels::gemm_tn_accumulate(input_, scratch_.view(), weight_grad_sum_);
  if (grad_x.data == nullptr) return;
  kernels::gemm(false, true, 1.0f, scratch_.view(), weight_.view(), 0.0f, grad_x);
}

void GcnLayer::zero_grad() {
  weight_grad_.fill(0.0f);
  std::fill(bias_grad_.begin(), bias_grad_.end(), 0.0f);
  std::fill(weight_grad_sum_.begin(), weight_grad_sum_.end(), 0.0);
  std::fill(bias_grad_sum_.begin(), bias_grad_sum_.end(), 0.0);
}

ParameterList GcnLayer::parameters() {
  ParameterList list{{weight_.storage(), weight_grad_.storage(), weight_grad_sum_, true}};
  if (has_bias_) list.push_back({bias_, bias_grad_, bias_grad_sum_, true});
  return list;
}

}  // namespace strata
