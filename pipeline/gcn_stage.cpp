#include "strata/pipeline/gcn_stage.h"

#include "strata/kernels/kernels.h"
#include "strata/pipeline/stage_buffers.h"

namespace strata {

using stage::ensure_shape;
using stage::rows;
using stage::scratch;

namespace {

int width_of(const ModelConfig& c, int l) {
  if (l == 0) return c.in_features;
  return l == c.num_layers ? c.classes : c.hidden;
}

}  // namespace

GcnStage::GcnStage(const ModelConfig& model, int first, int last, const ChunkLayout& layout,
                   const FeatureMatrix* features, StaleGrad stale)
    : model_(model),
      first_(first),
      last_(last),
      layout_(layout),
      features_(features),
      stale_(stale) {
  STRATA_CHECK(0 <= first && first < last && last <= model.num_layers, "stage layers [", first,
               ", ", last, ") of ", model.num_layers);
  STRATA_CHECK((first == 0) == (features != nullptr), "features belong to the stage with layer 0");
  for (int l = 0; l <= model.num_layers; ++l) widths_.push_back(width_of(model, l));
  const std::int64_t n = layout.a_hat.rows;
  for (int l = first; l < last; ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    const bool after = l > 0 || GcnLayer::aggregate_first(in, out);
    layers_.push_back({GcnLayer(in, out, model.bias, model.seed, l), l, after,
                       Matrix(n, after ? in : out), Matrix(after ? n : 0, in), Matrix(n, out),
                       Matrix(l > 0 || !after ? n : 0, after ? in : out)});
  }
  if (first == 0 && features->is_sparse()) sparse_.emplace(features->sparse().view());
  if (first > 0) {
    input_raw_ = Matrix(n, widths_[first]);
    input_grad_ = Matrix(n, widths_[first]);
  }
  output_grad_ = Matrix(n, widths_[last]);
}

void GcnStage::drop(MatrixView m, const ChunkBlock& b, int layer) const {
  if (dropping())
    kernels::dropout(m, stage::block_ids(layout_, b), model_.dropout, model_.seed, epoch_, layer);
}

void GcnStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_)
    if (layer.g.rows() > 0 && (layer.index == 0 || stale_ == StaleGrad::kDrop))
      kernels::zero(layer.g.view());
  if (first_ == 0) prepare_layer0();
}

// P of layer 0 for every row at once: the features are static, so nothing is historical.
void GcnStage::prepare_layer0() {
  Layer& layer = layers_.front();
  stage::drop_features(*features_, sparse_, dropped_features_, layout_.order,
                       dropping() ? model_.dropout : 0.0f, model_.seed, epoch_);
  if (sparse_) {
    if (layer.transform_after)
      sparse_->to_dense(layer.p.view());
    else
      kernels::spmm(sparse_->view(), layer.params.weight().view(), layer.p.view());
    return;
  }
  if (layer.transform_after)
    kernels::copy(dropped_features_.view(), layer.p.view());
  else
    kernels::gemm(false, false, 1.0f, dropped_features_.view(), layer.params.weight().view(), 0.0f,
                  layer.p.view());
}

MatrixView GcnStage::input_rows(const ChunkBlock& b) {
  return rows(input_raw_, b);
}

void GcnStage::forward(const ChunkBlock& b) {
  if (first_ > 0) {
    const MatrixView p = rows(layers_.front().p, b);
    kernels::copy(rows(input_raw_, b), p);
    drop(p, b, first_);
  }
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    forward_layer(layers_[j], b);
    if (j + 1 < layers_.size()) {
      const MatrixView next = rows(layers_[j + 1].p, b);
      kernels::copy(rows(layers_[j].y, b), next);
      drop(next, b, layers_[j + 1].index);
    }
  }
}

void GcnStage::forward_layer(Layer& layer, const ChunkBlock& b) {
  const CsrView a = row_block(layout_.a_hat, b.begin, b.end);
  const MatrixView y = rows(layer.y, b);
  if (layer.transform_after) {
    const MatrixView z = rows(layer.z, b);
    kernels::spmm(a, layer.p.view(), z);
    kernels::gemm(false, false, 1.0f, z, layer.params.weight().view(), 0.0f, y);
  } else {
    kernels::spmm(a, layer.p.view(), y);
  }
  if (model_.bias) kernels::add_bias_rows(y, layer.params.bias());
  if (layer.index + 1 < model_.num_layers) kernels::relu_forward(y, y);
}

ConstMatrixView GcnStage::output_rows(const ChunkBlock& b) const {
  return rows(layers_.back().y, b);
}

MatrixView GcnStage::output_grad_rows(const ChunkBlock& b) {
  return rows(output_grad_, b);
}

ConstMatrixView GcnStage::input_grad_rows(const ChunkBlock& b) const {
  return rows(input_grad_, b);
}

void GcnStage::backward(const ChunkBlock& b) {
  MatrixView grad = scratch(scratch_y_, b.end - b.begin, widths_[last_]);
  kernels::copy(rows(output_grad_, b), grad);
  for (std::size_t j = layers_.size(); j-- > 0;) {
    Layer& layer = layers_[j];
    backward_layer(layer, b, grad);
    if (layer.index == 0) return;
    if (j > 0) {
      grad = scratch(scratch_y_, b.end - b.begin, layer.params.in());
    } else {
      grad = rows(input_grad_, b);
    }
    stage::take_gradient(layer.g, b, grad);
    drop(grad, b, layer.index);
  }
}

void GcnStage::backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y) {
  if (layer.index + 1 < model_.num_layers) kernels::relu_backward(rows(layer.y, b), grad_y, grad_y);
  auto params = layer.params.parameters();
  if (model_.bias) kernels::column_sums_accumulate(grad_y, params[1].grad_sum);
  if (!layer.transform_after) {
    stage::scatter_gradient(b, grad_y, layer.g, scratch_touched_);
    return;
  }
  kernels::gemm_tn_accumulate(rows(layer.z, b), grad_y, params[0].grad_sum);
  if (layer.index == 0) return;  // the features need no gradient
  const MatrixView grad_z = scratch(scratch_z_, b.end - b.begin, layer.params.in());
  kernels::gemm(false, true, 1.0f, grad_y, layer.params.weight().view(), 0.0f, grad_z);
  stage::scatter_gradient(b, grad_z, layer.g, scratch_touched_);
}

void GcnStage::end_backward() {
  if (first_ == 0 && !layers_.front().transform_after) {
    Layer& layer = layers_.front();  // dW0 = X_droppedᵀ · G0, G0 exact over all blocks
    const auto sum = layer.params.parameters()[0].grad_sum;
    if (sparse_)
      kernels::spmm_accumulate(sparse_->transposed_view(), layer.g.view(), sum);
    else
      kernels::gemm_tn_accumulate(dropped_features_.view(), layer.g.view(), sum);
  }
  for (const Parameter& p : parameters()) kernels::cast_to_float(p.grad_sum, p.grad);
}

ParameterList GcnStage::parameters() {
  ParameterList list;
  for (Layer& layer : layers_)
    for (const Parameter& p : layer.params.parameters()) list.push_back(p);
  return list;
}

void GcnStage::zero_grad() {
  for (Layer& layer : layers_) layer.params.zero_grad();
}

// Layer 0 reads the static features (or X W): only later layers read history.
std::vector<Matrix*> GcnStage::history_buffers() {
  std::vector<Matrix*> buffers;
  for (Layer& layer : layers_)
    if (layer.index > 0) buffers.push_back(&layer.p);
  return buffers;
}

std::vector<Matrix*> GcnStage::carried_buffers() {
  std::vector<Matrix*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Layer& layer : layers_)
      if (layer.index > 0 && layer.g.rows() > 0) buffers.push_back(&layer.g);
  return buffers;
}

}  // namespace strata
