// GCNII (gcnii_model.h) on a kernels::Backend (backend_model.h), and the pieces of it that
// the pipeline stages run block by block: the dense layer and the dense part of a conv.
#pragma once
#include <cstddef>
#include <vector>

#include "strata/layers/backend_model.h"

namespace strata {

// y = x W + b, with W and b tensors t and t + 1 of a FlatParameters (linear.h's twin).
struct BackendLinear {
  std::size_t tensor = 0;
  void forward(const kernels::Backend& b, const FlatParameters& p, ConstMatrixView x,
               MatrixView y) const;
  void forward(const kernels::Backend& b, const FlatParameters& p, BackendFeatures& x,
               MatrixView y) const;
  // dW += xᵀ grad_y, db += column sums of grad_y.
  void accumulate(const kernels::Backend& b, FlatParameters& p, ConstMatrixView x,
                  ConstMatrixView grad_y) const;
  void accumulate(const kernels::Backend& b, FlatParameters& p, BackendFeatures& x,
                  ConstMatrixView grad_y) const;
  // grad_x = grad_y Wᵀ.
  void input_grad(const kernels::Backend& b, const FlatParameters& p, ConstMatrixView grad_y,
                  MatrixView grad_x) const;
};

// The dense part of GCNII conv `layer` (gcnii_conv.h's twin), W = tensor `tensor`.
struct BackendGcniiConv {
  std::size_t tensor = 0;
  float alpha = 0, beta = 0;
  BackendGcniiConv(const ModelConfig& config, int layer, std::size_t tensor);
  // z_to_s holds z on entry and s = (1 - alpha) z + alpha h0 on return;
  // y = (1 - beta) s + beta s W.
  void forward(const kernels::Backend& b, const FlatParameters& p, MatrixView z_to_s,
               ConstMatrixView h0, MatrixView y) const;
  // From grad_y (after the ReLU backward): dW += beta sᵀ grad_y, grad_h0 += alpha ds,
  // grad_z = (1 - alpha) ds with ds = (1 - beta) grad_y + beta grad_y Wᵀ.
  void backward(const kernels::Backend& b, FlatParameters& p, ConstMatrixView s,
                ConstMatrixView grad_y, MatrixView grad_h0, MatrixView grad_z) const;
};

class BackendGcniiModel : public BackendModel {
 public:
  // config.kind must be gcnii.
  BackendGcniiModel(const ModelConfig& config, const kernels::Backend& backend);

  const kernels::Tensor& forward(Aggregator& aggregator, BackendFeatures& features,
                                 const GlobalId* row_ids, bool training,
                                 std::int64_t epoch) override;
  void backward(Aggregator& aggregator, ConstMatrixView grad_logits) override;

 private:
  void run_convs(Aggregator& aggregator);
  void backward_convs(Aggregator& aggregator);

  BackendLinear input_, output_;
  std::vector<BackendGcniiConv> convs_;
  kernels::Tensor h0_, q_, logits_;
  std::vector<kernels::Tensor> p_, s_, y_;  // per conv: dropped input, s, ReLU output
  kernels::Tensor grad_h_, grad_h0_, grad_z_;
};

}  // namespace strata
