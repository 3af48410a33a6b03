// The GCN of gcn_model.h (dropout -> conv -> ReLU -> ... -> conv) on a kernels::Backend
// (backend_model.h). Each layer's product order is chosen as GcnModel chooses it.
#pragma once
#include <vector>

#include "strata/layers/backend_model.h"

namespace strata {

class BackendGcnModel : public BackendModel {
 public:
  // config.kind must be gcn.
  BackendGcnModel(const ModelConfig& config, const kernels::Backend& backend);

  const kernels::Tensor& forward(Aggregator& aggregator, BackendFeatures& features,
                                 const GlobalId* row_ids, bool training,
                                 std::int64_t epoch) override;
  void backward(Aggregator& aggregator, ConstMatrixView grad_logits) override;

 private:
  int width(int l) const;
  std::size_t tensor_of(int l) const {
    return static_cast<std::size_t>(l) * (config_.bias ? 2 : 1);
  }
  ConstMatrixView layer_input(int l);
  void forward_layer(Aggregator& aggregator, int l, ConstMatrixView x);
  void backward_layer(Aggregator& aggregator, int l, ConstMatrixView grad_y);

  // Per layer: output (ReLU applied but on the last), dropout copy of the input, Â X or
  // X W kept for backward, the input as forward saw it, and backward's two temporaries.
  std::vector<kernels::Tensor> outputs_, dropped_, kept_, scratch_, input_grads_;
  std::vector<ConstMatrixView> inputs_;
};

}  // namespace strata
