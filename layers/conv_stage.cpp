#include "conv_stage.h"

#include <algorithm>

namespace strata {
namespace {

enum Scratch { kGradY, kGradX, kGradZ, kGradP, kSlice, kGradH };

}  // namespace

int ConvStage::conv_width(const ModelConfig& model, int l) {
  return model.kind == ModelKind::kGin ? model.hidden : model.width(l + 1);
}

bool ConvStage::aggregates_first(const ModelConfig& model, int l, bool reads_history) {
  return (l > 0 && reads_history) || model.width(l) <= conv_width(model, l);
}

ConvStage::KeptZ ConvStage::kept_z(const ModelConfig& model, int l, const StageRows& r) {
  if (!aggregates_first(model, l, r.reads_history)) return KeptZ::kFloat32;
  if (r.recompute && r.shares && !r.halo) return KeptZ::kRecomputed;
  if (r.bf16 && model.width(l) <= conv_width(model, l)) return KeptZ::kBf16;
  return KeptZ::kFloat32;
}

ConvStage::ConvStage(const StageSetup& setup, int first, int last, ConvForm form)
    : RowStage(setup, first, last, false), first_(first), last_(last), form_(form) {
  STRATA_CHECK(!(form.root_weight && form.mlp), "a conv has a root weight or an MLP, not both");
  const std::int64_t n = graph_.rows();
  const std::size_t per_layer = tensors_per_layer(model_, form);
  for (int l = first; l < last; ++l)
    layers_.push_back(make_layer(l, static_cast<std::size_t>(l - first) * per_layer, setup));
  if (first > 0) {  // received straight into the first layer's input (forward drops them)
    Layer& front = layers_.front();
    kernels::Tensor& input = front.aggregate_first ? front.p : front.z;
    input_raw_ = kernels::Tensor::view_of(input.data(), n, model_.width(first));
  }
  if (first == 0 && form.root_weight) {
    root_ = tensor(n, model_.width(1));
    root_grad_ = tensor(n, model_.width(1));
  }
}

// Layer l's buffers. One block per pass (shares_memory): every forward ends before its
// backward begins, so buffers whose uses never overlap share memory: P0 lies in the
// backward's scratch; a later layer's Z (transform first) or P (aggregate first, no halo)
// is the previous Y; with a halo, G (filled by the backward, once P is dead) is P itself,
// but for a root weight (whose backward reads P) and delayed stale gradients (G carries
// them across passes). Recomputing, Z is made again from P in the backward: P of a later
// layer is the previous Y, alive until then; P0 is rebuilt from the features into Y0.
// Stored in bf16 (StageSetup::storage), Z is aggregated into the conv's output rows: only
// where Z is no wider (a chunked layer may aggregate first into narrower rows: its Z stays
// fp32). A learnt eps keeps P0 out of the scratch: its gradient reads P0's rows. Chunked
// with a whole backward (StageSetup::whole_backward), every forward block ends before the
// backward too: P0 lies in the scratch there as well.
// Chunked (pipeline, no halo), a later layer's P is the previous Y as well: P is that
// layer's history, and Y's rows of chunk b are written (then dropped in place) by b's
// forward, read by b's backward (the ReLU's, which the dropped zeros leave unchanged,
// as above), and hold the last evaluation's rows otherwise, which is what history is.
ConvStage::Layer ConvStage::make_layer(int l, std::size_t first_tensor, const StageSetup& setup) {
  const std::int64_t n = graph_.rows(), cols = graph_.columns();
  const bool share = shares_memory(graph_), halo = graph_.has_halo();
  const StageRows rows{n,     cols, graph_.chunked() && !halo, whole_rows_only(),
                       share, halo, setup.recompute,           setup.storage == RowCodec::kBf16};
  const int in = model_.width(l), mid = conv_width(model_, l), out = model_.width(l + 1);
  Layer layer = layer_tensors(first_tensor);
  layer.index = l;
  layer.aggregate_first = aggregates_first(model_, l, rows.reads_history);
  const bool after = layer.aggregate_first;
  const int exchanged = after ? in : mid;
  const KeptZ kept = kept_z(model_, l, rows);
  layer.recompute = kept == KeptZ::kRecomputed;
  const bool stored = kept == KeptZ::kBf16;
  layer.p_in_scratch = forward_ends_before_backward() && l == 0 && !layer.eps;  // (above)
  if (layer.p_in_scratch)
    layer.p = first_input_over_scratch(cols, exchanged);
  else if (l > first_ && after && !halo)  // chunked too (above)
    layer.p = kernels::Tensor::view_of(layers_.back().y.data(), cols, in);
  else
    layer.p = tensor(cols, exchanged);
  if (share && l > first_ && !after)
    layer.z = kernels::Tensor::view_of(layers_.back().y.data(), n, in);
  else if (stored)
    layer.z_bf16 =
        kernels::Buffer(backend_, static_cast<std::size_t>(n * row_codec_bytes(setup.storage, in)));
  else if (!layer.recompute)
    layer.z = tensor(after || l > 0 ? n : 0, in);
  if (layer.mlp) layer.h = tensor(n, mid);
  layer.y = tensor(n, out);
  layer.g_in_p = l > 0 && share && halo && !layer.root && stale_ != StaleGrad::kDelay;
  if (layer.g_in_p)
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
  std::int64_t floats = cols * width;
  for (int l = first_ + 1; l <= last_; ++l)
    floats = std::max(floats, graph_.rows() * static_cast<std::int64_t>(model_.width(l)));
  return kernels::Tensor::view_of(scratch(kGradX, floats, 1).data, cols, width);
}

void ConvStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_) {  // (G in P is zeroed by the backward, P being dead then)
    if (!training || whole_rows_only() || layer.g.rows() == 0 || layer.g_in_p) continue;
    if (layer.index == 0 || stale_ == StaleGrad::kDrop)
      zero(layer.g);
    else
      carry_stale(layer.g);
  }
  // A transform-first layer (hybrid mode only) holds P = Z W, which no mask on its rows
  // reproduces: its history keeps evaluation's values.
  for (Layer& layer : layers_)
    if (layer.index > 0 && layer.aggregate_first) drop_history(layer.p, layer.index);
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
  if (first_ > 0) drop(input_of(layers_.front(), b), b, first_);
  for (std::size_t j = 0; j < layers_.size(); ++j) {
    forward_layer(layers_[j], b);
    if (j + 1 < layers_.size()) {
      // The next layer's input is Y itself where they share memory: dropout in place. The
      // ReLU's backward then reads the dropped Y, whose zeros are Y's or dropout's: either
      // way the gradient there is zero, as it is from Y.
      const MatrixView next = input_of(layers_[j + 1], b);
      copy_dropped(rows(layers_[j].y, b), next, b, layers_[j + 1].index);
    }
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
    aggregate_into(layer, b, layer.p.view(), z);
    backend_.gemm(false, false, 1.0f, z, w, 0.0f, y);
  } else {
    aggregate_into(layer, b, layer.p.view(), y);
  }
  if (layer.root && layer.index == 0)
    backend_.axpy(1.0f, rows(root_, b), y);
  else if (layer.root)
    backend_.gemm(false, false, 1.0f, input_of(layer, b), parameters_.value(*layer.root), 1.0f, y);
  if (model_.bias) backend_.add_bias_rows(y, parameters_.value(layer.weight + 1).data);
  if (layer.mlp || !last_model_layer(layer)) backend_.relu_forward(y, y);
  if (layer.mlp) mlp_forward(layer, b);
}

// Y's rows of b (the conv's output) are contiguous (a tensor's stride is its width) and at
// least as wide as Z's: Z over their first floats is dead once stored, before the first
// slice of Y is written.
void ConvStage::aggregate_stored(Layer& layer, const Block& b, MatrixView y) {
  const MatrixView z{y.data, b.size(), model_.width(layer.index), model_.width(layer.index)};
  aggregate_into(layer, b, layer.p.view(), z);
  backend_.encode_rows(z, nullptr, b.size(), RowCodec::kBf16, 0, stored_rows(layer, b));
  for (const Block& s : slices(b))
    backend_.gemm(false, false, 1.0f, stored_slice(layer, s), parameters_.value(layer.weight), 0.0f,
                  piece_rows(y, b, s));
}

MatrixView ConvStage::stored_slice(Layer& layer, const Block& s) {
  const MatrixView z = scratch(kSlice, s.size(), model_.width(layer.index));
  backend_.decode_rows(stored_rows(layer, s), RowCodec::kBf16, nullptr, s.size(), z, false);
  return z;
}

std::byte* ConvStage::stored_rows(Layer& layer, const Block& s) const {
  return layer.z_bf16.as<std::byte>() +
         s.begin * row_codec_bytes(RowCodec::kBf16, model_.width(layer.index));
}

// The gradient flows through two scratch buffers in turn (a layer reads one and writes
// the other); kGradZ holds what an aggregate-first layer sends through Âᵀ, kGradP what a
// transform-first one gets back. Layer by layer, piece by piece (BlockGraph::pieces): a
// layer's interior pieces run while the halo's share of the gradient of the layer after
// it travels; the boundary piece waits for it. GIN's MLP leaves d loss / d H in kGradH,
// which finish_layer does not read (it reads grad_y for a root term only).
void ConvStage::backward(const Block& b) {
  MatrixView grad = rows(output_grad_, b);  // the activation's backward runs in place
  const std::vector<Block> pieces = graph_.pieces(b);
  int buffer = kGradY;
  Arriving arriving;
  for (std::size_t j = layers_.size(); j-- > 0;) {
    Layer& layer = layers_[j];
    const bool sends_z = layer.aggregate_first && layer.index > 0;
    const MatrixView grad_z = sends_z ? grad_z_rows(layer, b) : MatrixView{};
    const MatrixView grad_h =
        layer.mlp ? scratch(kGradH, b.size(), conv_width(model_, layer.index)) : MatrixView{};
    for (const Block& piece : pieces) {
      if (arriving.layer != nullptr) finish_layer(arriving, b, piece, true);
      start_layer(layer, piece, piece_rows(grad, b, piece), piece_rows(grad_h, b, piece),
                  piece_rows(grad_z, b, piece));
      if (piece.chunk == kInteriorPiece) graph_.progress();
    }
    if (layer.mlp) grad = grad_h;
    if (layer.index == 0) {
      first_layer_backward(layer, b, grad);
      return;
    }
    buffer = buffer == kGradY ? kGradX : kGradY;
    const MatrixView grad_x =
        j > 0 ? scratch(buffer, b.size(), model_.width(layer.index)) : rows(input_grad_, b);
    const MatrixView grad_p =
        layer.aggregate_first ? grad_x : scratch(kGradP, b.size(), conv_width(model_, layer.index));
    arriving = {&layer, grad, grad_p, grad_x};
    if (layer.g_in_p) zero(layer.g);
    const MatrixView sent = sends_z ? grad_z : grad;
    const bool arrives = start_propagate(layer.g, b, sent, grad_p);
    if (layer.eps) backend_.axpy(layer.eps_value, sent, arrives ? rows(layer.g, b) : grad_p);
    if (!arrives) {
      finish_layer(arriving, b, b, false);
      arriving = {};
    }
    grad = grad_x;
  }
  if (arriving.layer != nullptr) finish_layer(arriving, b, b, true);
}

// Where an aggregate-first layer's dY Wᵀ goes: over Z's rows where Z is kept as computed
// (start_layer reads each piece's rows of Z for dW before it writes them, and nothing
// reads Z again before the next forward); else, one block per pass, over Y's (ys_hold_grad_z);
// else the scratch.
MatrixView ConvStage::grad_z_rows(Layer& layer, const Block& b) {
  const std::int64_t in = model_.width(layer.index);
  if (layer.z.rows() > 0) return rows(layer.z, b);
  if (ys_hold_grad_z(model_, layer.index, shares_memory(graph_)))
    return {layer.y.data() + b.begin * model_.width(layer.index + 1), b.size(), in, in};
  return scratch(kGradZ, b.size(), in);
}

// Y's rows of b, no narrower than dY Wᵀ's (the layer's input), hold it packed at their
// start: piece by piece in row order, the ReLU's backward reads a piece's rows of Y before
// dY Wᵀ is written over them, and the rows written end no later than the piece's own. One
// block per pass only: chunked, Y's rows are the next layer's history. Not GIN (Y is its
// MLP's output, H its conv's).
bool ConvStage::ys_hold_grad_z(const ModelConfig& model, int l, bool shares) {
  return shares && model.kind != ModelKind::kGin && model.width(l) <= model.width(l + 1);
}

// A layer's backward on b's rows up to Âᵀ: the activation's, and (aggregate first,
// Y = (Â P) W) dW += Zᵀ dY and grad_z = dY Wᵀ, what Âᵀ then takes; and eps's gradient
// (layer 0's: first_layer_backward), while P's rows are whole.
void ConvStage::start_layer(Layer& layer, const Block& b, MatrixView grad_y, MatrixView grad_h,
                            MatrixView grad_z) {
  const MatrixView grad = activation_backward(layer, b, grad_y, grad_h);
  if (grad_z.data == nullptr) {
    if (layer.index > 0) eps_gradient(layer, b, grad);
    return;
  }
  weight_gradient(layer, b, grad);
  backend_.gemm(false, true, 1.0f, grad, parameters_.value(layer.weight), 0.0f, grad_z);
  eps_gradient(layer, b, grad_z);
}

void ConvStage::weight_gradient(Layer& layer, const Block& b, ConstMatrixView grad_y) {
  const kernels::GradientSums sums = parameters_.sum(layer.weight);
  if (layer.stored()) {
    for (const Block& s : slices(b))
      backend_.gemm_tn_accumulate(1.0f, stored_slice(layer, s), piece_rows(grad_y, b, s), sums);
    return;
  }
  if (!layer.recompute) {
    backend_.gemm_tn_accumulate(1.0f, rows(layer.z, b), grad_y, sums);
    return;
  }
  kernels::Tensor p;  // P0 in the scratch: again, this pass's mask, in the conv's output rows
  if (layer.p_in_scratch) {  // (their activations' backward ran)
    p = kernels::Tensor::view_of(conv_rows(layer, graph_.every_row()).data, graph_.columns(),
                                 model_.width(0));
    features_->copy_to(p.view());
  }
  const ConstMatrixView input = layer.p_in_scratch ? p.view() : layer.p.view();
  for (const Block& s : slices(b)) {
    const MatrixView z = scratch(kSlice, s.size(), model_.width(layer.index));
    aggregate_into(layer, s, input, z);
    backend_.gemm_tn_accumulate(1.0f, z, piece_rows(grad_y, b, s), sums);
  }
}

std::vector<Block> ConvStage::slices(const Block& b) const {
  std::vector<Block> out;
  for (LocalId r = b.begin; r < b.end; r += kSliceRows)
    out.push_back({r, std::min(r + kSliceRows, b.end), kRowSlice});
  return out;
}

// The rows `piece` of a's layer once its gradient through Âᵀ is in (taken into grad_p
// here unless it already is): transform first (P = Z W, Y = Â P), dW += Zᵀ dP and
// dZ = dP Wᵀ; then the root term, and dropout's backward.
void ConvStage::finish_layer(const Arriving& a, const Block& b, const Block& piece, bool take) {
  Layer& layer = *a.layer;
  const MatrixView grad_p = piece_rows(a.grad_p, b, piece);
  const MatrixView grad_x = piece_rows(a.grad_x, b, piece);
  if (take) take_propagated(layer.g, b, piece, grad_p);
  if (!layer.aggregate_first) {
    backend_.gemm_tn_accumulate(1.0f, rows(layer.z, piece), grad_p, parameters_.sum(layer.weight));
    backend_.gemm(false, true, 1.0f, grad_p, parameters_.value(layer.weight), 0.0f, grad_x);
  }
  if (layer.root) root_backward(layer, piece, piece_rows(a.grad_y, b, piece), grad_x);
  drop(grad_x, piece, layer.index);
}

// Layer 0 passes no gradient on (the features are static); a transform-first one leaves
// dP0 in g for end_backward, as the root term leaves its d loss / d (X W_root). eps's
// gradient reads what Âᵀ would take (aggregate first: dY W^T, made for it alone).
void ConvStage::first_layer_backward(Layer& layer, const Block& b, ConstMatrixView grad_y) {
  if (layer.root) backend_.copy(grad_y, rows(root_grad_, b));
  if (layer.aggregate_first) {
    weight_gradient(layer, b, grad_y);
    if (!layer.eps) return;
    const MatrixView grad_z = scratch(kGradZ, b.size(), model_.width(0));
    backend_.gemm(false, true, 1.0f, grad_y, parameters_.value(layer.weight), 0.0f, grad_z);
    eps_gradient(layer, b, grad_z);
    return;
  }
  eps_gradient(layer, b, grad_y);
  if (whole_rows_only())
    graph_.transpose_multiply(b, grad_y, layer.g.view());
  else
    graph_.scatter_gradient(b, grad_y, layer.g.view());
  if (layer.eps) backend_.axpy(layer.eps_value, grad_y, rows(layer.g, b));
}

// Layer 0's gradients that need every block: dW_root0 = X_droppedᵀ · d(X W_root0) and, if
// it transforms first, dW0 = X_droppedᵀ · dP0 (dP0 exact once every block has run).
void ConvStage::end_backward() {
  if (first_ != 0) return;
  Layer& layer = layers_.front();
  const Block every = graph_.every_row();
  if (layer.root) features_->accumulate_transposed(root_grad_.view(), parameters_.sum(*layer.root));
  if (layer.aggregate_first) return;
  graph_.exchange_gradient(every, layer.g.view());
  features_->accumulate_transposed(rows(layer.g, every), parameters_.sum(layer.weight));
}

// Layer 0 reads the static features (or X W): only later layers read history.
std::vector<kernels::Tensor*> ConvStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Layer& layer : layers_)
    if (layer.index > 0) buffers.push_back(&layer.p);
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
