#include "strata/layers/gcn_model.h"

#include "strata/kernels/kernels.h"

namespace strata {
namespace {

int layer_width(const ModelConfig& c, int l) {
  if (l == 0) return c.in_features;
  return l == c.num_layers ? c.classes : c.hidden;
}

void ensure_shape(Matrix& m, std::int64_t rows, std::int64_t cols) {
  if (m.rows() != rows || m.cols() != cols) m = Matrix(rows, cols);
}

}  // namespace

GcnModel::GcnModel(const ModelConfig& config) : config_(config) {
  STRATA_CHECK(config.num_layers >= 1, "GcnModel: ", config.num_layers, " layers");
  for (int l = 0; l < config.num_layers; ++l) {
    layers_.emplace_back(layer_width(config, l), layer_width(config, l + 1), config.bias,
                         config.seed, l);
  }
  outputs_.resize(layers_.size());
  dropped_.resize(layers_.size());
  grads_.resize(layers_.size());
}

// Dropout works on a copy: the undropped ReLU output is still needed by backward.
ConstMatrixView GcnModel::layer_input(int l, ConstMatrixView features, std::int64_t rows) {
  const ConstMatrixView raw = l == 0 ? features : ConstMatrixView(outputs_[l - 1].view());
  if (!dropping()) return raw;
  Matrix& copy = dropped_[l];
  ensure_shape(copy, rows, raw.cols);
  kernels::copy(raw, copy.view());
  kernels::dropout(copy.view(), ids_, config_.dropout, config_.seed, epoch_, l);
  return copy.view();
}

void GcnModel::begin(std::span<const GlobalId> global_ids, bool training, std::int64_t epoch) {
  training_ = training;
  epoch_ = epoch;
  ids_.assign(global_ids.begin(), global_ids.end());
}

void GcnModel::finish_layer(int l) {
  if (l + 1 < static_cast<int>(layers_.size()))
    kernels::relu_forward(outputs_[l].view(), outputs_[l].view());
}

void GcnModel::run_layer(Aggregator& aggregator, int l, ConstMatrixView input) {
  ensure_shape(outputs_[l], aggregator.owned_rows(), layers_[l].out());
  layers_[l].forward(aggregator, input, outputs_[l].view(), l);
  finish_layer(l);
}

const Matrix& GcnModel::forward(Aggregator& aggregator, ConstMatrixView features_owned,
                                std::span<const GlobalId> global_ids, bool training,
                                std::int64_t epoch) {
  begin(global_ids, training, epoch);
  const std::int64_t rows = aggregator.owned_rows();
  for (int l = 0; l < static_cast<int>(layers_.size()); ++l)
    run_layer(aggregator, l, layer_input(l, features_owned, rows));
  forward_done_ = true;
  return outputs_.back();
}

void GcnModel::run_first_sparse(Aggregator& aggregator, SparseFeatures& features) {
  if (dropping()) {
    features.dropout(ids_, config_.dropout, config_.seed, epoch_, 0);
  } else {
    features.reset();
  }
  GcnLayer& layer = layers_[0];
  if (GcnLayer::aggregate_first(layer.in(), layer.out())) {
    ensure_shape(dropped_[0], features.rows(), features.cols());
    features.to_dense(dropped_[0].view());
    run_layer(aggregator, 0, dropped_[0].view());
    return;
  }
  ensure_shape(outputs_[0], aggregator.owned_rows(), layer.out());
  layer.forward_sparse(aggregator, features.view(), features.transposed_view(), outputs_[0].view(),
                       0);
  finish_layer(0);
}

const Matrix& GcnModel::forward(Aggregator& aggregator, SparseFeatures& features,
                                std::span<const GlobalId> global_ids, bool training,
                                std::int64_t epoch) {
  begin(global_ids, training, epoch);
  const std::int64_t rows = aggregator.owned_rows();
  run_first_sparse(aggregator, features);
  for (int l = 1; l < static_cast<int>(layers_.size()); ++l)
    run_layer(aggregator, l, layer_input(l, {}, rows));
  forward_done_ = true;
  return outputs_.back();
}

void GcnModel::backward(Aggregator& aggregator, ConstMatrixView grad_logits) {
  STRATA_CHECK(forward_done_, "GcnModel::backward before forward");
  ConstMatrixView grad = grad_logits;
  for (int l = static_cast<int>(layers_.size()) - 1; l >= 0; --l) {
    MatrixView grad_x;
    if (l > 0) {
      ensure_shape(grads_[l], grad.rows, layers_[l].in());
      grad_x = grads_[l].view();
    }
    layers_[l].backward(aggregator, grad, grad_x, l);
    if (l == 0) break;
    if (dropping()) kernels::dropout(grad_x, ids_, config_.dropout, config_.seed, epoch_, l);
    kernels::relu_backward(outputs_[l - 1].view(), grad_x, grad_x);
    grad = grad_x;
  }
}

ParameterList GcnModel::parameters() {
  ParameterList list;
  for (GcnLayer& layer : layers_) {
    for (const Parameter& p : layer.parameters()) list.push_back(p);
  }
  return list;
}

void GcnModel::zero_grad() {
  for (GcnLayer& layer : layers_) layer.zero_grad();
}

}  // namespace strata
