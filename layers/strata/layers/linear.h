// A dense layer y = x W + b over any rows, with gradients summed in double. It keeps no
// activations: callers hand the input back to backward, so one layer serves both whole
// matrices and chunk after chunk of rows.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/graph/csr.h"
#include "strata/layers/parameter.h"

namespace strata {

class Linear {
 public:
  // W (in x out) is Glorot-uniform keyed by (seed, layer); b starts at zero.
  Linear(int in, int out, std::uint64_t seed, int layer);

  void forward(ConstMatrixView x, MatrixView y) const;
  void forward(CsrView x, MatrixView y) const;
  // dW += xᵀ grad_y, db += column sums of grad_y.
  void accumulate(ConstMatrixView x, ConstMatrixView grad_y);
  // The same with sparse x, given as xᵀ.
  void accumulate_sparse(CsrView x_transposed, ConstMatrixView grad_y);
  // grad_x = grad_y Wᵀ.
  void input_grad(ConstMatrixView grad_y, MatrixView grad_x) const;

  // Float gradients from the double sums.
  void cast_gradients();
  void zero_grad();
  ParameterList parameters();
  int in() const { return static_cast<int>(weight_.rows()); }
  int out() const { return static_cast<int>(weight_.cols()); }
  Matrix& weight() { return weight_; }

 private:
  Matrix weight_, weight_grad_;
  std::vector<float> bias_, bias_grad_;
  std::vector<double> weight_sum_, bias_sum_;
};

}  // namespace strata
