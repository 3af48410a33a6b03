#include "gat_stage.h"

namespace strata {
namespace {

enum Scratch { kGradY, kGradX, kGradHeads, kGradZ, kGradDst, kGradP, kAgg, kFirstH };

}  // namespace

int GatStage::heads(const ModelConfig& model, int l) {
  return concatenates(model, l) ? model.heads : model.output_heads;
}

int GatStage::head_width(const ModelConfig& model, int l) {
  return concatenates(model, l) ? model.hidden : model.classes;
}

int GatStage::exchanged_width(const ModelConfig& model, int l) {
  return heads(model, l) * head_width(model, l) + heads(model, l);
}

GatStage::GatStage(const StageSetup& setup, int first, int last)
    : RowStage(setup, first, last), first_(first), last_(last) {
  const std::size_t per_layer = model_.bias ? 4 : 3;
  for (int l = first; l < last; ++l)
    layers_.push_back(make_layer(l, static_cast<std::size_t>(l - first) * per_layer));
}

GatStage::Layer GatStage::make_layer(int l, std::size_t first_tensor) {
  Layer layer;
  layer.index = l;
  layer.heads = heads(model_, l);
  layer.width = head_width(model_, l);
  layer.weight = first_tensor;
  const std::int64_t n = graph_.rows(), cols = graph_.columns();
  layer.p = tensor(cols, exchanged_width(model_, l));
  layer.s_dst = tensor(n, layer.heads);
  layer.alpha = tensor(graph_.entry_count(), layer.heads);
  if (l > 0) layer.x = tensor(n, model_.width(l));
  layer.y = tensor(n, model_.width(l + 1));
  layer.g = tensor(cols, exchanged_width(model_, l));
  return layer;
}

kernels::AttentionDropout GatStage::attention_dropout(const Layer& layer) const {
  const float p = training_ ? model_.attention_dropout : 0.0f;
  return {p, model_.seed, epoch_, layer.index};
}

void GatStage::scores(const Layer& layer, ConstMatrixView h, std::size_t t, MatrixView s) const {
  const ConstMatrixView a = parameters_.value(t);
  for (int k = 0; k < layer.heads; ++k)
    backend_.gemm(false, true, 1.0f, columns(h, k * layer.width, (k + 1) * layer.width),
                  a.rows_range(k, k + 1), 0.0f, columns(s, k, k + 1));
}

void GatStage::scores_backward(const Layer& layer, ConstMatrixView h, std::size_t t,
                               ConstMatrixView ds, MatrixView dh) {
  const ConstMatrixView a = parameters_.value(t);
  const kernels::GradientSums sums = parameters_.sum(t);
  const std::size_t value_bytes = dtype_size(backend_.gradient_type());
  for (int k = 0; k < layer.heads; ++k) {
    const ConstMatrixView ds_k = columns(ds, k, k + 1);
    const std::int64_t begin = k * layer.width, end = begin + layer.width;
    const kernels::GradientSums row{static_cast<std::byte*>(sums.data) + begin * value_bytes, 1,
                                    layer.width};
    backend_.gemm_tn_accumulate(1.0f, ds_k, columns(h, begin, end), row);
    backend_.gemm(false, false, 1.0f, ds_k, a.rows_range(k, k + 1), 1.0f, columns(dh, begin, end));
  }
}

void GatStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_) {
    if (!training) continue;
    if (layer.index == 0 || stale_ != StaleGrad::kDelay)
      zero(layer.g);
    else
      carry_stale(layer.g);
  }
  if (first_ == 0) prepare_first_layer();
}

// P of layer 0 for every row at once: the features are static, so nothing is historical.
// X W goes through contiguous scratch: the features' products take no strided rows (the
// CUDA backend's SpMM plans refuse them), and P's rows are K F + K wide.
void GatStage::prepare_first_layer() {
  Layer& layer = layers_.front();
  const Block every = graph_.every_row();
  const MatrixView h = scratch(kFirstH, every.size(), layer.h_cols());
  dropped_features().multiply(parameters_.value(layer.weight), h);
  const MatrixView p = rows(layer.p, every);
  backend_.copy(h, columns(p, 0, layer.h_cols()));
  scores(layer, h, layer.att_src(), columns(p, layer.h_cols(), layer.h_cols() + layer.heads));
  graph_.exchange(every, layer.p.view(), training_);
}

void GatStage::forward(const Block& b) {
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    Layer& layer = layers_[j];
    if (layer.index > 0) {
      const ConstMatrixView input = j == 0 ? rows(input_raw_, b) : rows(layers_[j - 1].y, b);
      forward_layer(layer, b, input);
    }
    attend(layer, b);
  }
}

// P[b] = [x W | s_src] from b's dropped input rows x, then its exchange.
void GatStage::forward_layer(Layer& layer, const Block& b, ConstMatrixView input) {
  const MatrixView x = rows(layer.x, b);
  copy_dropped(input, x, b, layer.index);
  const MatrixView p = rows(layer.p, b);
  const MatrixView h = columns(p, 0, layer.h_cols());
  backend_.gemm(false, false, 1.0f, x, parameters_.value(layer.weight), 0.0f, h);
  scores(layer, h, layer.att_src(), columns(p, layer.h_cols(), layer.h_cols() + layer.heads));
  graph_.exchange(b, layer.p.view(), training_);
}

// Y[b] from the exchanged P: scores, softmax, weighted sum of the heads, bias, ELU.
void GatStage::attend(Layer& layer, const Block& b) {
  const MatrixView s_dst = rows(layer.s_dst, b);
  scores(layer, h_of(layer.p, layer).rows_range(b.begin, b.end), layer.att_dst(), s_dst);
  const kernels::EdgeBlock& e = graph_.entries(b);
  float* alpha = alpha_of(layer, e);
  backend_.attention_softmax(e, layer.heads, s_dst, s_src_of(layer.p, layer), kNegativeSlope,
                             alpha);
  const MatrixView y = rows(layer.y, b);
  const bool concat = concatenates(model_, layer.index);
  const MatrixView out = concat ? y : scratch(kAgg, b.size(), layer.h_cols());
  backend_.attention_aggregate(e, layer.heads, alpha, attention_dropout(layer),
                               h_of(layer.p, layer), out);
  if (!concat) {  // the mean of the heads
    backend_.copy(columns(out, 0, layer.width), y);
    for (int k = 1; k < layer.heads; ++k)
      backend_.axpy(1.0f, columns(out, k * layer.width, (k + 1) * layer.width), y);
    if (layer.heads > 1) backend_.scale(y, 1.0f / static_cast<float>(layer.heads));
  }
  if (model_.bias) backend_.add_bias_rows(y, parameters_.value(layer.bias()).data);
  if (!last_model_layer(layer)) backend_.elu_forward(y, y);
}

// Layer by layer: the attention's backward scatters [d H | d s_src] into g over the
// columns, the owners' share comes back, and the own rows then give d W and d x.
void GatStage::backward(const Block& b) {
  MatrixView grad = scratch(kGradY, b.size(), model_.width(last_));
  backend_.copy(rows(output_grad_, b), grad);
  int buffer = kGradY;
  for (std::size_t j = layers_.size(); j-- > 0;) {
    Layer& layer = layers_[j];
    backward_attention(layer, b, grad);
    if (layer.index == 0) return;  // end_backward takes g once every block is in
    graph_.exchange_gradient(b, layer.g.view());
    const MatrixView grad_p = scratch(kGradP, b.size(), exchanged_width(model_, layer.index));
    take_gradient(layer.g, b, grad_p);
    const MatrixView grad_h = own_rows_gradient(layer, b, grad_p);
    backend_.gemm_tn_accumulate(1.0f, rows(layer.x, b), grad_h, parameters_.sum(layer.weight));
    buffer = buffer == kGradY ? kGradX : kGradY;
    const MatrixView grad_x =
        j > 0 ? scratch(buffer, b.size(), model_.width(layer.index)) : rows(input_grad_, b);
    backend_.gemm(false, true, 1.0f, grad_h, parameters_.value(layer.weight), 0.0f, grad_x);
    drop(grad_x, b, layer.index);
    grad = grad_x;
  }
}

// From d loss / d Y on b's rows: ELU's and the bias's backward, the attention's, and the
// destination scores' (b's own rows of H, added into g[b]).
void GatStage::backward_attention(Layer& layer, const Block& b, MatrixView grad_y) {
  if (!last_model_layer(layer)) backend_.elu_backward(rows(layer.y, b), grad_y, grad_y);
  if (model_.bias) backend_.column_sums_accumulate(grad_y, parameters_.sum(layer.bias()));
  MatrixView grad_heads = grad_y;
  if (!concatenates(model_, layer.index)) {
    grad_heads = scratch(kGradHeads, b.size(), layer.h_cols());
    for (int k = 0; k < layer.heads; ++k) {
      const MatrixView head = columns(grad_heads, k * layer.width, (k + 1) * layer.width);
      backend_.copy(grad_y, head);
      if (layer.heads > 1) backend_.scale(head, 1.0f / static_cast<float>(layer.heads));
    }
  }
  const kernels::EdgeBlock& e = graph_.entries(b);
  const float* alpha = alpha_of(layer, e);
  float* grad_z = scratch(kGradZ, e.entries, layer.heads).data;
  const MatrixView grad_dst = scratch(kGradDst, b.size(), layer.heads);
  const kernels::AttentionDropout dropout = attention_dropout(layer);
  backend_.attention_backward(e, layer.heads, alpha, dropout, rows(layer.s_dst, b),
                              s_src_of(layer.p, layer), kNegativeSlope, grad_heads,
                              h_of(layer.p, layer), grad_z, grad_dst);
  backend_.attention_scatter(e, layer.heads, alpha, dropout, grad_heads, grad_z,
                             h_of(layer.g, layer), s_src_of(layer.g, layer));
  scores_backward(layer, h_of(layer.p, layer).rows_range(b.begin, b.end), layer.att_dst(), grad_dst,
                  h_of(layer.g, layer).rows_range(b.begin, b.end));
}

MatrixView GatStage::own_rows_gradient(Layer& layer, const Block& b, MatrixView grad_p) {
  const MatrixView grad_h = columns(grad_p, 0, layer.h_cols());
  const MatrixView grad_src = columns(grad_p, layer.h_cols(), layer.h_cols() + layer.heads);
  scores_backward(layer, h_of(layer.p, layer).rows_range(b.begin, b.end), layer.att_src(), grad_src,
                  grad_h);
  return grad_h;
}

// Layer 0's gradients once every block has scattered: d W0 = X_droppedᵀ d H0, d H0 made
// contiguous first (as in prepare_first_layer).
void GatStage::end_backward() {
  if (first_ != 0) return;
  Layer& layer = layers_.front();
  const Block every = graph_.every_row();
  graph_.exchange_gradient(every, layer.g.view());
  const MatrixView grad_p = rows(layer.g, every);
  const MatrixView grad_h = own_rows_gradient(layer, every, grad_p);
  const MatrixView dense = scratch(kFirstH, every.size(), layer.h_cols());
  backend_.copy(grad_h, dense);
  features_->accumulate_transposed(dense, parameters_.sum(layer.weight));
}

std::vector<kernels::Tensor*> GatStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Layer& layer : layers_)
    if (layer.index > 0) buffers.push_back(&layer.p);
  return buffers;
}

std::vector<kernels::Tensor*> GatStage::carried_buffers() {
  std::vector<kernels::Tensor*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Layer& layer : layers_)
      if (layer.index > 0) buffers.push_back(&layer.g);
  return buffers;
}

std::vector<const kernels::Tensor*> GatStage::layer_outputs() const {
  std::vector<const kernels::Tensor*> outputs;
  for (const Layer& layer : layers_) outputs.push_back(&layer.y);
  return outputs;
}

}  // namespace strata
