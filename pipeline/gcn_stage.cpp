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
                   const FeatureMatrix* features, StaleGrad stale, StageHalo* halo)
    : model_(model),
      first_(first),
      last_(last),
      layout_(layout),
      features_(features),
      stale_(stale),
      halo_(halo) {
  STRATA_CHECK(0 <= first && first < last && last <= model.num_layers, "stage layers [", first,
               ", ", last, ") of ", model.num_layers);
  STRATA_CHECK((first == 0) == (features != nullptr), "features belong to the stage with layer 0");
  for (int l = 0; l <= model.num_layers; ++l) widths_.push_back(width_of(model, l));
  const std::int64_t n = layout.a_hat.rows, cols = layout.a_hat.cols;  // cols: with halo
  for (int l = first; l < last; ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    // Layers > 0 aggregate first, so that their history is of their input; a hybrid stage
    // transforms first where graph mode does (fewer columns to exchange).
    const bool after = (l > 0 && !halo) || GcnLayer::aggregate_first(in, out);
    layers_.push_back({GcnLayer(in, out, model.bias, model.seed, l), l, after,
                       Matrix(cols, after ? in : out), Matrix(after || l > 0 ? n : 0, in),
                       Matrix(n, out), Matrix(l > 0 || !after ? cols : 0, after ? in : out)});
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
  const ChunkBlock every = owned_rows();
  stage::drop_features(*features_, sparse_, dropped_features_, stage::block_ids(layout_, every),
                       dropping() ? model_.dropout : 0.0f, model_.seed, epoch_);
  const MatrixView p = rows(layer.p, every);
  if (sparse_ && layer.transform_after)
    sparse_->to_dense(p);
  else if (sparse_)
    kernels::spmm(sparse_->view(), layer.params.weight().view(), p);
  else if (layer.transform_after)
    kernels::copy(dropped_features_.view(), p);
  else
    kernels::gemm(false, false, 1.0f, dropped_features_.view(), layer.params.weight().view(), 0.0f,
                  p);
  if (halo_) halo_->forward(every, layer.p, training_);
}

ChunkBlock GcnStage::owned_rows() const {
  return {0, layout_.a_hat.rows, {}, {}, -1};
}

MatrixView GcnStage::input_rows(const ChunkBlock& b) {
  return rows(input_raw_, b);
}

void GcnStage::forward(const ChunkBlock& b) {
  if (first_ > 0) {
    const MatrixView p = input_of(layers_.front(), b);
    kernels::copy(rows(input_raw_, b), p);
    drop(p, b, first_);
  }
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    forward_layer(layers_[j], b);
    if (j + 1 < layers_.size()) {
      const MatrixView next = input_of(layers_[j + 1], b);
      kernels::copy(rows(layers_[j].y, b), next);
      drop(next, b, layers_[j + 1].index);
    }
  }
}

// Where a layer > 0 takes its dropped input rows: P itself, or (transform first) Z, the
// rows P = Z W is computed from.
MatrixView GcnStage::input_of(Layer& layer, const ChunkBlock& b) {
  return rows(layer.transform_after ? layer.p : layer.z, b);
}

void GcnStage::forward_layer(Layer& layer, const ChunkBlock& b) {
  const CsrView a = row_block(layout_.a_hat, b.begin, b.end);
  const MatrixView y = rows(layer.y, b);
  if (layer.index > 0 && !layer.transform_after)
    kernels::gemm(false, false, 1.0f, rows(layer.z, b), layer.params.weight().view(), 0.0f,
                  rows(layer.p, b));
  if (halo_ && layer.index > 0) halo_->forward(b, layer.p, training_);
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
    if (halo_) halo_->backward(b, layer.g);
    if (j > 0) {
      grad = scratch(scratch_y_, b.end - b.begin, layer.params.in());
    } else {
      grad = rows(input_grad_, b);
    }
    if (layer.transform_after)
      stage::take_gradient(layer.g, b, grad);
    else
      transformed_input_grad(layer, b, grad);
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

// Transform first (P = Z W): dW += Zᵀ dP and d loss / d Z = dP Wᵀ, once dP of b is whole.
void GcnStage::transformed_input_grad(Layer& layer, const ChunkBlock& b, MatrixView grad) {
  const MatrixView grad_p = scratch(scratch_z_, b.end - b.begin, layer.params.out());
  stage::take_gradient(layer.g, b, grad_p);
  kernels::gemm_tn_accumulate(rows(layer.z, b), grad_p, layer.params.parameters()[0].grad_sum);
  kernels::gemm(false, true, 1.0f, grad_p, layer.params.weight().view(), 0.0f, grad);
}

void GcnStage::end_backward() {
  if (first_ == 0 && !layers_.front().transform_after) {
    Layer& layer = layers_.front();  // dW0 = X_droppedᵀ · G0, G0 exact over all blocks
    const auto sum = layer.params.parameters()[0].grad_sum;
    const ChunkBlock every = owned_rows();
    if (halo_) halo_->backward(every, layer.g);
    if (sparse_)
      kernels::spmm_accumulate(sparse_->transposed_view(), rows(layer.g, every), sum);
    else
      kernels::gemm_tn_accumulate(dropped_features_.view(), rows(layer.g, every), sum);
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
