#include "strata/layers/backend_gcn.h"

#include "strata/layers/gcn_layer.h"

namespace strata {

BackendGcnModel::BackendGcnModel(const ModelConfig& config, const kernels::Backend& backend)
    : BackendModel(config, backend) {
  STRATA_CHECK(config.kind == ModelKind::kGcn && config.num_layers >= 1,
               "BackendGcnModel: a gcn model with layers >= 1");
  const auto layers = static_cast<std::size_t>(config.num_layers);
  for (auto* v : {&outputs_, &dropped_, &kept_, &scratch_, &input_grads_}) v->resize(layers);
  inputs_.resize(layers);
}

int BackendGcnModel::width(int l) const {
  if (l == 0) return config_.in_features;
  return l == config_.num_layers ? config_.classes : config_.hidden;
}

// Dropout works on a copy: backward still needs the undropped ReLU output. Layer 0 reads
// the features (dropped by begin()): dense when it aggregates first, else through X · W.
ConstMatrixView BackendGcnModel::layer_input(int l) {
  if (l == 0)
    return GcnLayer::aggregate_first(width(0), width(1)) ? features_->dense() : ConstMatrixView{};
  const ConstMatrixView raw = outputs_[l - 1].view();
  if (!dropping()) return raw;
  kernels::Tensor& copy = sized(dropped_[l], raw.rows, raw.cols);
  backend_.copy(raw, copy.view());
  drop(copy.view(), l);
  return copy.view();
}

void BackendGcnModel::forward_layer(Aggregator& aggregator, int l, ConstMatrixView x) {
  const std::int64_t rows = aggregator.owned_rows();
  MatrixView y = sized(outputs_[l], rows, width(l + 1)).view();
  inputs_[l] = x;
  if (GcnLayer::aggregate_first(width(l), width(l + 1))) {
    MatrixView ax = sized(kept_[l], rows, width(l)).view();
    aggregator.forward(x, ax, l);
    backend_.gemm(false, false, 1.0f, ax, parameters_.value(tensor_of(l)), 0.0f, y);
  } else {
    MatrixView xw = sized(kept_[l], rows, width(l + 1)).view();
    if (l == 0)
      features_->multiply(parameters_.value(tensor_of(l)), xw);
    else
      backend_.gemm(false, false, 1.0f, x, parameters_.value(tensor_of(l)), 0.0f, xw);
    aggregator.forward(xw, y, l);
  }
  if (config_.bias) backend_.add_bias_rows(y, parameters_.value(tensor_of(l) + 1).data);
  if (l + 1 < config_.num_layers) backend_.relu_forward(y, y);
}

const kernels::Tensor& BackendGcnModel::forward(Aggregator& aggregator, BackendFeatures& features,
                                                const GlobalId* row_ids, bool training,
                                                std::int64_t epoch) {
  begin(aggregator, features, row_ids, training, epoch);
  for (int l = 0; l < config_.num_layers; ++l) forward_layer(aggregator, l, layer_input(l));
  forward_done_ = true;
  return outputs_.back();
}

// Aggregate first, Y = (Â X) W: dW += (Â X)ᵀ dY, dX = Âᵀ (dY Wᵀ).
// Transform first, Y = Â (X W): d(XW) = Âᵀ dY, dW += Xᵀ d(XW), dX = d(XW) Wᵀ.
// Layer 0 makes no dX, so an aggregate-first layer 0 exchanges nothing in backward.
void BackendGcnModel::backward_layer(Aggregator& aggregator, int l, ConstMatrixView grad_y) {
  const std::int64_t rows = grad_y.rows;
  const int in = width(l), out = width(l + 1);
  if (config_.bias) backend_.column_sums(grad_y, parameters_.grad(tensor_of(l) + 1).data, true);
  MatrixView grad_x;
  if (l > 0) grad_x = sized(input_grads_[l], rows, in).view();
  if (GcnLayer::aggregate_first(in, out)) {
    backend_.gemm(true, false, 1.0f, kept_[l].view(), grad_y, 1.0f, parameters_.grad(tensor_of(l)));
    if (l == 0) return;
    MatrixView g = sized(scratch_[l], rows, in).view();
    backend_.gemm(false, true, 1.0f, grad_y, parameters_.value(tensor_of(l)), 0.0f, g);
    aggregator.backward(g, grad_x, l);
  } else {
    MatrixView g = sized(scratch_[l], rows, out).view();
    aggregator.backward(grad_y, g, l);
    if (l == 0) {
      features_->accumulate_transposed(g, parameters_.grad(tensor_of(l)));
      return;
    }
    backend_.gemm(true, false, 1.0f, inputs_[l], g, 1.0f, parameters_.grad(tensor_of(l)));
    backend_.gemm(false, true, 1.0f, g, parameters_.value(tensor_of(l)), 0.0f, grad_x);
  }
  drop(grad_x, l);
  backend_.relu_backward(outputs_[l - 1].view(), grad_x, grad_x);
}

void BackendGcnModel::backward(Aggregator& aggregator, ConstMatrixView grad_logits) {
  STRATA_CHECK(forward_done_, "BackendGcnModel::backward before forward");
  ConstMatrixView grad = grad_logits;
  for (int l = config_.num_layers - 1; l >= 0; --l) {
    backward_layer(aggregator, l, grad);
    if (l > 0) grad = input_grads_[l].view();
  }
}

}  // namespace strata
