#include "strata/pipeline/backend_gcn_stage.h"

#include "strata/layers/gcn_layer.h"
#include "strata/pipeline/backend_stage_halo.h"

namespace strata {
namespace {

int width_of(const ModelConfig& c, int l) {
  if (l == 0) return c.in_features;
  return l == c.num_layers ? c.classes : c.hidden;
}

enum Scratch { kGradY, kGradZ };

}  // namespace

BackendGcnStage::BackendGcnStage(const BackendStageSetup& setup, int first, int last)
    : BackendStage(setup, stage_tensor_range(setup.model, first, last)),
      first_(first),
      last_(last) {
  STRATA_CHECK(0 <= first && first < last && last <= model_.num_layers, "stage layers [", first,
               ", ", last, ") of ", model_.num_layers);
  STRATA_CHECK((first == 0) == (setup.features != nullptr),
               "features belong to the stage with layer 0");
  for (int l = 0; l <= model_.num_layers; ++l) widths_.push_back(width_of(model_, l));
  const std::int64_t n = layout_.a_hat.rows, cols = layout_.a_hat.cols;  // cols: with halo
  const std::size_t per_layer = model_.bias ? 2 : 1;
  for (int l = first; l < last; ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    const bool after = (l > 0 && !halo_) || GcnLayer::aggregate_first(in, out);
    layers_.push_back({l, after, static_cast<std::size_t>(l - first) * per_layer,
                       tensor(cols, after ? in : out), tensor(after || l > 0 ? n : 0, in),
                       tensor(n, out), tensor(l > 0 || !after ? cols : 0, after ? in : out)});
  }
  if (first > 0) {
    input_raw_ = tensor(n, widths_[first]);
    input_grad_ = tensor(n, widths_[first]);
  }
  output_grad_ = tensor(n, widths_[last]);
}

void BackendGcnStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_)
    if (layer.g.rows() > 0 && (layer.index == 0 || stale_ == StaleGrad::kDrop)) zero(layer.g);
  if (first_ == 0) prepare_layer0();
}

// P of layer 0 for every row at once: the features are static, so nothing is historical.
void BackendGcnStage::prepare_layer0() {
  Layer& layer = layers_.front();
  const ChunkBlock every = every_row();
  BackendFeatures& x = dropped_features();
  const MatrixView p = rows(layer.p, every);
  if (layer.transform_after)
    x.copy_to(p);
  else
    x.multiply(parameters_.value(layer.weight), p);
  if (halo_) halo_->forward(every, layer.p, training_);
}

void BackendGcnStage::forward(const ChunkBlock& b) {
  if (first_ > 0) {
    const MatrixView p = input_of(layers_.front(), b);
    backend_.copy(rows(input_raw_, b), p);
    drop(p, b, first_);
  }
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    forward_layer(layers_[j], b);
    if (j + 1 < layers_.size()) {
      const MatrixView next = input_of(layers_[j + 1], b);
      backend_.copy(rows(layers_[j].y, b), next);
      drop(next, b, layers_[j + 1].index);
    }
  }
}

MatrixView BackendGcnStage::input_of(Layer& layer, const ChunkBlock& b) {
  return rows(layer.transform_after ? layer.p : layer.z, b);
}

void BackendGcnStage::forward_layer(Layer& layer, const ChunkBlock& b) {
  const MatrixView y = rows(layer.y, b);
  const ConstMatrixView w = parameters_.value(layer.weight);
  if (layer.index > 0 && !layer.transform_after)
    backend_.gemm(false, false, 1.0f, rows(layer.z, b), w, 0.0f, rows(layer.p, b));
  if (halo_ && layer.index > 0) halo_->forward(b, layer.p, training_);
  if (layer.transform_after) {
    const MatrixView z = rows(layer.z, b);
    blocks_.aggregate(b, layer.p.view(), z);
    backend_.gemm(false, false, 1.0f, z, w, 0.0f, y);
  } else {
    blocks_.aggregate(b, layer.p.view(), y);
  }
  if (model_.bias) backend_.add_bias_rows(y, parameters_.value(layer.weight + 1).data);
  if (layer.index + 1 < model_.num_layers) backend_.relu_forward(y, y);
}

void BackendGcnStage::backward(const ChunkBlock& b) {
  const std::int64_t n = b.end - b.begin;
  MatrixView grad = scratch(kGradY, n, widths_[last_]);
  backend_.copy(rows(output_grad_, b), grad);
  for (std::size_t j = layers_.size(); j-- > 0;) {
    Layer& layer = layers_[j];
    backward_layer(layer, b, grad);
    if (layer.index == 0) return;
    if (halo_) halo_->backward(b, layer.g);
    grad = j > 0 ? scratch(kGradY, n, widths_[layer.index]) : rows(input_grad_, b);
    if (layer.transform_after)
      take_gradient(layer.g, b, grad);
    else
      transformed_input_grad(layer, b, grad);
    drop(grad, b, layer.index);
  }
}

void BackendGcnStage::backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y) {
  if (layer.index + 1 < model_.num_layers) backend_.relu_backward(rows(layer.y, b), grad_y, grad_y);
  if (model_.bias) backend_.column_sums(grad_y, parameters_.grad(layer.weight + 1).data, true);
  if (!layer.transform_after) {
    blocks_.scatter_gradient(b, grad_y, layer.g.view());
    return;
  }
  backend_.gemm(true, false, 1.0f, rows(layer.z, b), grad_y, 1.0f, parameters_.grad(layer.weight));
  if (layer.index == 0) return;  // the features need no gradient
  const MatrixView grad_z = scratch(kGradZ, b.end - b.begin, widths_[layer.index]);
  backend_.gemm(false, true, 1.0f, grad_y, parameters_.value(layer.weight), 0.0f, grad_z);
  blocks_.scatter_gradient(b, grad_z, layer.g.view());
}

// Transform first (P = Z W): dW += Zᵀ dP and d loss / d Z = dP Wᵀ, once dP of b is whole.
void BackendGcnStage::transformed_input_grad(Layer& layer, const ChunkBlock& b, MatrixView grad) {
  const MatrixView grad_p = scratch(kGradZ, b.end - b.begin, widths_[layer.index + 1]);
  take_gradient(layer.g, b, grad_p);
  backend_.gemm(true, false, 1.0f, rows(layer.z, b), grad_p, 1.0f, parameters_.grad(layer.weight));
  backend_.gemm(false, true, 1.0f, grad_p, parameters_.value(layer.weight), 0.0f, grad);
}

void BackendGcnStage::end_backward() {
  if (first_ != 0 || layers_.front().transform_after) return;
  Layer& layer = layers_.front();  // dW0 = X_droppedᵀ · G0, G0 exact over all blocks
  const ChunkBlock every = every_row();
  if (halo_) halo_->backward(every, layer.g);
  features_->accumulate_transposed(rows(layer.g, every), parameters_.grad(layer.weight));
}

// Layer 0 reads the static features (or X W): only later layers read history.
std::vector<kernels::Tensor*> BackendGcnStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Layer& layer : layers_)
    if (layer.index > 0) buffers.push_back(&layer.p);
  return buffers;
}

std::vector<kernels::Tensor*> BackendGcnStage::carried_buffers() {
  std::vector<kernels::Tensor*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Layer& layer : layers_)
      if (layer.index > 0 && layer.g.rows() > 0) buffers.push_back(&layer.g);
  return buffers;
}

}  // namespace strata
