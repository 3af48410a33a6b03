// One GCN layer, Y = Â X W + b, over the rows a rank owns. The order of the two products
// is chosen so that the graph exchange moves the narrower matrix:
//   in <= out: aggregate first, Y = (Â X) W   (exchange width in)
//   in >  out: transform first, Y = Â (X W)   (exchange width out)
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/graph/csr.h"
#include "strata/layers/aggregator.h"
#include "strata/layers/parameter.h"

namespace strata {

class GcnLayer {
 public:
  // W (in x out) is Glorot-uniform keyed by (seed, layer); b starts at zero.
  GcnLayer(int in, int out, bool bias = true, std::uint64_t seed = 0, int layer = 0);

  static bool aggregate_first(int in, int out) { return in <= out; }
  // Width of the rows exchanged by the aggregation, in forward and in backward.
  static int exchange_width(int in, int out) { return in < out ? in : out; }
  // Whether backward calls aggregator.backward. Aggregate-first needs it only to pass
  // the gradient on to X; transform-first needs it for dW as well.
  bool needs_backward_exchange(bool need_input_grad) const {
    return !aggregate_first(in_, out_) || need_input_grad;
  }

  // y_owned = Â x_owned W + b. x_owned must stay unchanged until backward (a
  // transform-first layer keeps a view of it for dW).
  void forward(Aggregator& aggregator, ConstMatrixView x_owned, MatrixView y_owned, int layer);
  // The same with sparse X (transform-first layers only): X W by CSR x dense SpMM, and
  // backward computes dW = Xᵀ d(XW) with x_transposed. x and x_transposed must stay
  // unchanged until backward, which cannot produce dX (pass a null grad_x).
  void forward_sparse(Aggregator& aggregator, CsrView x_owned, CsrView x_transposed,
                      MatrixView y_owned, int layer);
  // Adds this batch's dW, db; writes dX into grad_x unless grad_x.data is null.
  void backward(Aggregator& aggregator, ConstMatrixView grad_y, MatrixView grad_x, int layer);

  void zero_grad();
  ParameterList parameters();
  int in() const { return in_; }
  int out() const { return out_; }
  Matrix& weight() { return weight_; }
  std::vector<float>& bias() { return bias_; }

 private:
  void forward_aggregate_first(Aggregator& aggregator, ConstMatrixView x, MatrixView y, int layer);
  void forward_transform_first(Aggregator& aggregator, ConstMatrixView x, MatrixView y, int layer);
  void check_output(Aggregator& aggregator, ConstMatrixView y) const;
  void backward_aggregate_first(Aggregator& aggregator, ConstMatrixView grad_y, MatrixView grad_x,
                                int layer);
  void backward_transform_first(Aggregator& aggregator, ConstMatrixView grad_y, MatrixView grad_x,
                                int layer);
  static void ensure_shape(Matrix& m, std::int64_t rows, std::int64_t cols);
  void cast_gradients();

  int in_;
  int out_;
  bool has_bias_;
  Matrix weight_;
  std::vector<float> bias_;
  Matrix weight_grad_;
  std::vector<float> bias_grad_;
  std::vector<double> weight_grad_sum_, bias_grad_sum_;  // backward accumulates here
  Matrix aggregated_;      // Â X (aggregate-first) or X W (transform-first), from forward
  ConstMatrixView input_;  // X as given to forward (transform-first needs it for dW)
  CsrView sparse_input_transposed_;  // Xᵀ from forward_sparse
  bool sparse_input_ = false;
  Matrix scratch_;  // backward's intermediate gradient
  bool forward_done_ = false;
};

}  // namespace strata
