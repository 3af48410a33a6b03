#include "conv_stage.h"

#include <algorithm>

namespace strata {

int ConvStage::conv_width(const ModelConfig& model, int l) {
  return model.kind == ModelKind::kGin ? model.hidden : model.width(l + 1);
}

bool ConvStage::aggregates_first(const ModelConfig& model, int l, bool reads_history) {
  return (l > 0 && reads_history) || model.width(l) <= conv_width(model, l);
}

ConvStage::KeptZ ConvStage::kept_z(const ModelConfig& model, ConvForm form, int l,
                                   const StageRows& r) {
  if (!aggregates_first(model, l, r.reads_history)) return KeptZ::kFloat32;
  if (r.recompute && r.shares && (!r.halo || (l > 0 && !form.root_weight)))
    return KeptZ::kRecomputed;
  if (r.bf16 && model.width(l) <= conv_width(model, l)) return KeptZ::kBf16;
  return KeptZ::kFloat32;
}

bool ConvStage::stores_history(int l, int first, const StageRows& r) {
  return l > 0 && l >= first && r.bf16 && r.reads_history;
}

ConvStage::GradHome ConvStage::grad_home(const ModelConfig& model, ConvForm form, int first,
                                         int last, const StageRows& r) {
  if (!r.forward_ends_first() || form.root_weight) return GradHome::kAlternating;
  const bool p0_in_scratch = first == 0 && !(form.mlp && model.learn_eps);  // (make_layer)
  if (p0_in_scratch && (r.shares || last < model.num_layers)) return GradHome::kOverFirstInput;
  return GradHome::kOwn;
}

// The gradients of rows (the features get none), and the accumulators that lie there too.
std::int64_t ConvStage::grads_floats(const ModelConfig& model, int first, int last, GradHome home,
                                     const StageRows& r) {
  std::int64_t floats = 0;
  for (int l = std::max(first, 1); l <= last; ++l)
    floats = std::max(floats, r.owned * model.width(l));
  for (int l = std::max(first, 1); l < last; ++l)
    if (g_in_grads(model, l, home, r)) floats = std::max(floats, r.columns * model.width(l));
  return floats;
}

bool ConvStage::g_in_grads(const ModelConfig& model, int l, GradHome home, const StageRows& r) {
  return home != GradHome::kAlternating && l > 0 && r.halo &&
         aggregates_first(model, l, r.reads_history);
}

bool ConvStage::g_in_grads(int l) const {
  return stale_ != StaleGrad::kDelay && g_in_grads(model_, l, grad_home_, rows_);
}

// The stage's rows as the estimate (ConvModel) describes them.
StageRows ConvStage::rows_of(const StageSetup& setup) const {
  const bool chunked = graph_.chunked(), halo = graph_.has_halo();
  return {.owned = graph_.rows(),
          .columns = graph_.columns(),
          .reads_history = chunked && !halo,
          .whole_rows_only = whole_rows_only(),
          .shares = shares_memory(graph_),
          .halo = halo,
          .recompute = setup.recompute,
          .bf16 = setup.storage == RowCodec::kBf16,
          .whole_backward = chunked && forward_ends_before_backward()};
}

// (Stage::forward_ends_before_backward, before the stage is built.)
ConvStage::GradHome ConvStage::grad_home_of(const StageSetup& setup, ConvForm form, int first,
                                            int last) {
  const bool chunked = setup.graph.chunked();
  return grad_home(setup.model, form, first, last,
                   {.shares = !chunked, .whole_backward = chunked && setup.whole_backward});
}

ConvStage::ConvStage(const StageSetup& setup, int first, int last, ConvForm form)
    : RowStage(setup, first, last,
               {.input = false,
                .gradients = grad_home_of(setup, form, first, last) == GradHome::kAlternating}),
      first_(first),
      last_(last),
      form_(form),
      grad_home_(grad_home_of(setup, form, first, last)),
      outputs_after_backward_(setup.outputs_after_backward),
      rows_(rows_of(setup)) {
  STRATA_CHECK(!(form.root_weight && form.mlp), "a conv has a root weight or an MLP, not both");
  const std::int64_t n = graph_.rows();
  const std::size_t per_layer = tensors_per_layer(model_, form);
  if (grad_home_ == GradHome::kOwn)  // before the layers, whose accumulators may lie there
    grads_ = tensor(grads_floats(model_, first_, last_, grad_home_, rows_), 1);
  for (int l = first; l < last; ++l)
    layers_.push_back(make_layer(l, static_cast<std::size_t>(l - first) * per_layer, setup));
  if (first > 0 && !layers_.front().history_stored()) {  // received straight into P or Z
    Layer& front = layers_.front();
    kernels::Tensor& input = front.aggregate_first ? front.p : front.z;
    input_raw_ = kernels::Tensor::view_of(input.data(), n, model_.width(first));
  }
  if (first == 0 && form.root_weight) {
    root_ = tensor(n, model_.width(1));
    root_grad_ = tensor(n, model_.width(1));
  }
  point_gradients_at_grads();
}

// GradHome kOverFirstInput: P0's scratch (first_input_over_scratch sized it for every use);
// kOwn: a buffer of its own (grads_).
void ConvStage::point_gradients_at_grads() {
  if (grad_home_ == GradHome::kAlternating) return;
  const std::int64_t n = graph_.rows();
  output_grad_ = kernels::Tensor::view_of(grads_data(), n, model_.width(last_));
  if (first_ > 0) input_grad_ = kernels::Tensor::view_of(grads_data(), n, model_.width(first_));
}

float* ConvStage::grads_data() {
  return grad_home_ == GradHome::kOwn ? grads_.data() : layers_.front().p.data();
}

MatrixView ConvStage::grads_rows(const Block& b, int width) {
  return {grads_data() + b.begin * width, b.size(), width, width};
}

// Layer l's buffers. One block per pass (shares_memory): every forward ends before its
// backward begins, so buffers whose uses never overlap share memory: P0 lies in the
// backward's scratch; a later layer's Z (transform first) or P (aggregate first, no halo)
// is the previous Y; with a halo, G (filled by the backward) of an aggregate-first layer
// lies in the gradients' buffer where one holds them (GradHome, g_in_grads), and then P
// outlives the backward and its first rows are the previous Y (dropped in place, as
// without a halo); else G is P itself, once P is dead; but for a root weight (whose
// backward reads P) and delayed stale gradients (G carries them across passes).
// Recomputing, Z is made again from P in the backward: P of a later layer is the previous
// Y, alive until then; P0 is rebuilt from the features into Y0. Stored in bf16
// (StageSetup::storage), Z is aggregated into the conv's output rows: only where Z is no
// wider (a chunked layer may aggregate first into narrower rows: its Z stays fp32). A
// learnt eps keeps P0 out of the scratch: its gradient reads P0's rows.
// Chunked with a whole backward (StageSetup::whole_backward), every forward block ends
// before the backward too: P0 lies in the scratch there as well, a transform-first layer's
// Z is the previous Y, and with a halo G lies in the gradients' buffer as above.
// Chunked (pipeline, no halo), a later layer's P is the previous Y as well: P is that
// layer's history, and Y's rows of chunk b are written (then dropped in place) by b's
// forward, read by b's backward (the ReLU's, which the dropped zeros leave unchanged,
// as above), and hold the last evaluation's rows otherwise, which is what history is.
ConvStage::Layer ConvStage::make_layer(int l, std::size_t first_tensor, const StageSetup& setup) {
  const std::int64_t n = graph_.rows(), cols = graph_.columns();
  const bool share = rows_.shares, halo = rows_.halo;
  const int in = model_.width(l), mid = conv_width(model_, l), out = model_.width(l + 1);
  Layer layer = layer_tensors(first_tensor);
  layer.index = l;
  layer.aggregate_first = aggregates_first(model_, l, rows_.reads_history);
  const bool after = layer.aggregate_first;
  const int exchanged = after ? in : mid;
  const KeptZ kept = kept_z(model_, form_, l, rows_);
  layer.recompute = kept == KeptZ::kRecomputed;
  STRATA_CHECK(!layer.recompute || !halo || g_in_grads(l),
               "a recomputing layer's input outlives the backward");
  const bool stored = kept == KeptZ::kBf16;
  layer.p_in_scratch = forward_ends_before_backward() && l == 0 && !layer.eps;  // (above)
  if (layer.p_in_scratch)
    layer.p = first_input_over_scratch(cols, exchanged);
  else if (stores_history(l, first_, rows_))
    layer.p_bf16 = kernels::Buffer(
        backend_, static_cast<std::size_t>(cols * row_codec_bytes(RowCodec::kBf16, in)));
  else if (l > first_ && after && !halo)  // chunked too (above)
    layer.p = kernels::Tensor::view_of(layers_.back().y.data(), cols, in);
  else
    layer.p = tensor(cols, exchanged);
  const bool g_in_grads_l = g_in_grads(l);  // P outlives the backward: it holds the last Y
  if (g_in_grads_l && l > first_)
    layers_.back().y = kernels::Tensor::view_of(layer.p.data(), n, in);
  if (forward_ends_before_backward() && l > first_ && !after)
    layer.z = kernels::Tensor::view_of(layers_.back().y.data(), n, in);
  else if (stored)
    layer.z_bf16 =
        kernels::Buffer(backend_, static_cast<std::size_t>(n * row_codec_bytes(setup.storage, in)));
  else if (!layer.recompute)
    layer.z = tensor(after || l > 0 ? n : 0, in);
  if (layer.mlp) layer.h = tensor(n, mid);
  const bool y_elsewhere =  // in the next layer's P (as above), or a block's in its arrival rows
      l + 1 < last_ && (g_in_grads(l + 1) || stores_history(l + 1, first_, rows_));
  if (!y_elsewhere) layer.y = tensor(n, out);
  layer.g_borrowed =
      g_in_grads_l || (l > 0 && share && halo && !layer.root && stale_ != StaleGrad::kDelay);
  if (g_in_grads_l)
    layer.g = kernels::Tensor::view_of(grads_data(), cols, exchanged);
  else if (layer.g_borrowed)
    layer.g = kernels::Tensor::view_of(layer.p.data(), cols, exchanged);
  else  // layer 0 keeps dP0 when it transforms first (end_backward needs every block's)
    layer.g = l > 0 ? gradient_buffer(exchanged) : tensor(after ? 0 : cols, exchanged);
  return layer;
}

bool ConvStage::shares_memory(const BlockGraph& graph) {
  return !graph.chunked();
}

// P0 over the backward's kGradX scratch: P0 is rebuilt every pass and dead once the
// forward has aggregated it, before the backward writes the scratch. The scratch is made
// as large as any backward asks (layers 1 .. last: the features get no gradient), so that
// it never moves.
kernels::Tensor ConvStage::first_input_over_scratch(std::int64_t cols, int width) {
  const std::int64_t floats =
      std::max(cols * width, grads_floats(model_, first_, last_, grad_home_, rows_));
  return kernels::Tensor::view_of(scratch(kGradX, floats, 1).data, cols, width);
}

void ConvStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_) {  // (a borrowed G is zeroed by the backward)
    if (!training || whole_rows_only() || layer.g.rows() == 0 || layer.g_borrowed) continue;
    if (layer.index == 0 || stale_ == StaleGrad::kDrop)
      zero(layer.g);
    else
      carry_stale(layer.g);
  }
  // A transform-first layer (hybrid mode only) holds P = Z W, which no mask on its rows
  // reproduces: its history keeps evaluation's values.
  for (Layer& layer : layers_) {
    if (layer.index == 0 || !layer.aggregate_first) continue;
    if (layer.history_stored())
      drop_stored_history(layer);
    else
      drop_history(layer.p, layer.index);
  }
  read_eps();
  if (first_ == 0) prepare_first_layer();
}

// P of layer 0 for every row at once: the features are static, so nothing is historical.
void ConvStage::prepare_first_layer() {
  Layer& layer = layers_.front();
  const Block every = graph_.every_row();
  Features& x = dropped_features();
  const MatrixView p = rows(layer.p, every);
  if (layer.aggregate_first)
    x.copy_to(p);
  else
    x.multiply(parameters_.value(layer.weight), p);
  graph_.exchange(every, layer.p.view(), training_);
  if (layer.root) x.multiply(parameters_.value(*layer.root), root_.view());
}

void ConvStage::forward(const Block& b) {
  if (first_ > 0 && layers_.front().history_stored())
    store_input(layers_.front(), b);
  else if (first_ > 0)
    drop(input_of(layers_.front(), b), b, first_);
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    forward_layer(layers_[j], b);
    if (j + 1 == layers_.size()) continue;
    // The next layer's input is Y itself where they share memory: dropout in place. The
    // ReLU's backward then reads the dropped Y, whose zeros are Y's or dropout's: either
    // way the gradient there is zero, as it is from Y. Stored, Y's rows of b were its
    // arrival rows, and the ReLU's backward reads the stored rows.
    Layer& next = layers_[j + 1];
    if (next.history_stored())
      store_input(next, b);
    else
      copy_dropped(rows(layers_[j].y, b), input_of(next, b), b, next.index);
  }
}

// Where a layer > 0 keeps its dropped input rows (what W_root multiplies too): P itself,
// or (transform first) Z, the rows P = Z W is computed from.
MatrixView ConvStage::input_of(Layer& layer, const Block& b) {
  return rows(layer.aggregate_first ? layer.p : layer.z, b);
}

// P is whole before it is exchanged; then b is finished piece by piece (BlockGraph::
// pieces), the interior ones while the halo travels.
void ConvStage::forward_layer(Layer& layer, const Block& b) {
  if (layer.index > 0 && !layer.aggregate_first)
    backend_.gemm(false, false, 1.0f, rows(layer.z, b), parameters_.value(layer.weight), 0.0f,
                  rows(layer.p, b));
  if (layer.index > 0) graph_.exchange(b, layer.p.view(), training_);
  for (const Block& piece : graph_.pieces(b)) aggregate_layer(layer, piece);
}

void ConvStage::aggregate_layer(Layer& layer, const Block& b) {
  const MatrixView y = conv_rows(layer, b);
  const ConstMatrixView w = parameters_.value(layer.weight);
  if (layer.recompute) {
    for (const Block& s : slices(b)) {
      const MatrixView z = scratch(kSlice, s.size(), model_.width(layer.index));
      aggregate_into(layer, s, layer.p.view(), z);
      backend_.gemm(false, false, 1.0f, z, w, 0.0f, piece_rows(y, b, s));
    }
  } else if (layer.stored()) {
    aggregate_stored(layer, b, y);
  } else if (layer.aggregate_first) {
    const MatrixView z = rows(layer.z, b);
    aggregate_input(layer, b, z);
    backend_.gemm(false, false, 1.0f, z, w, 0.0f, y);
  } else {
    aggregate_into(layer, b, layer.p.view(), y);
  }
  if (layer.root && layer.index == 0)
    backend_.axpy(1.0f, rows(root_, b), y);
  else if (layer.root)
    for_input_slices(layer, b, input_of(layer, b), [&](const Block& s, ConstMatrixView x) {
      backend_.gemm(false, false, 1.0f, x, parameters_.value(*layer.root), 1.0f,
                    piece_rows(y, b, s));
    });
  if (model_.bias) backend_.add_bias_rows(y, parameters_.value(layer.weight + 1).data);
  if (layer.mlp || !last_model_layer(layer)) backend_.relu_forward(y, y);
  if (layer.mlp) mlp_forward(layer, b);
}

// Y's rows of b (the conv's output) are contiguous (a tensor's stride is its width) and at
// least as wide as Z's: Z over their first floats is dead once stored, before the first
// slice of Y is written.
void ConvStage::aggregate_stored(Layer& layer, const Block& b, MatrixView y) {
  const MatrixView z{y.data, b.size(), model_.width(layer.index), model_.width(layer.index)};
  aggregate_input(layer, b, z);
  store_bf16(z, layer.z_bf16, b.begin);
  for (const Block& s : slices(b))
    backend_.gemm(false, false, 1.0f, stored_slice(layer, s), parameters_.value(layer.weight), 0.0f,
                  piece_rows(y, b, s));
}

MatrixView ConvStage::stored_slice(Layer& layer, const Block& s) {
  return decode_slice(layer.z_bf16, s, model_.width(layer.index));
}

std::vector<Block> ConvStage::slices(const Block& b) const {
  std::vector<Block> out;
  for (LocalId r = b.begin; r < b.end; r += kSliceRows)
    out.push_back({r, std::min(r + kSliceRows, b.end), kRowSlice});
  return out;
}

// Layer 0 reads the static features (or X W): only later layers read history.
std::vector<kernels::Tensor*> ConvStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Layer& layer : layers_)
    if (layer.index > 0 && !layer.history_stored()) buffers.push_back(&layer.p);
  return buffers;
}

std::vector<kernels::Buffer*> ConvStage::stored_buffers() {
  std::vector<kernels::Buffer*> buffers;
  for (Layer& layer : layers_)
    if (layer.history_stored()) buffers.push_back(&layer.p_bf16);
  return buffers;
}

std::vector<const kernels::Tensor*> ConvStage::layer_outputs() const {
  std::vector<const kernels::Tensor*> outputs;
  for (const Layer& layer : layers_) outputs.push_back(&layer.y);
  return outputs;
}

std::vector<kernels::Tensor*> ConvStage::carried_buffers() {
  std::vector<kernels::Tensor*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Layer& layer : layers_)
      if (layer.index > 0 && layer.g.rows() > 0) buffers.push_back(&layer.g);
  return buffers;
}

}  // namespace strata
