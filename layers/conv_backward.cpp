// ConvStage's backward (conv_stage.h): layer by layer from the stage's output gradient,
// each layer's weight gradient and what its aggregation sends back through Âᵀ, and the
// gradients of layer 0 that need every block.
#include "conv_stage.h"

namespace strata {

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
    const MatrixView grad_x = input_gradient_rows(layer, b, j == 0, buffer);
    const MatrixView grad_p =
        layer.aggregate_first ? grad_x : scratch(kGradP, b.size(), conv_width(model_, layer.index));
    arriving = {&layer, grad, grad_p, grad_x};
    if (layer.g_borrowed) zero(layer.g);
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

// d loss / d the input rows of b of a layer > 0 (the stage's own input: input_grad_): over
// its d loss / d Y (GradHome other than kAlternating), which it has read by the time it
// writes them (root terms, which read d loss / d Y later, keep kAlternating); else the
// scratch buffer the layer after it did not write.
MatrixView ConvStage::input_gradient_rows(const Layer& layer, const Block& b, bool stage_input,
                                          int& buffer) {
  if (stage_input) return rows(input_grad_, b);
  if (grad_home_ != GradHome::kAlternating) return grads_rows(b, model_.width(layer.index));
  buffer = buffer == kGradY ? kGradX : kGradY;
  return scratch(buffer, b.size(), model_.width(layer.index));
}

// Where an aggregate-first layer's dY Wᵀ goes: over Z's rows where Z is kept as computed
// (start_layer reads each piece's rows of Z for dW before it writes them, and nothing
// reads Z again before the next forward); else over Y's where Y is dead once read
// (ys_hold_grad_z); else the scratch.
MatrixView ConvStage::grad_z_rows(Layer& layer, const Block& b) {
  const std::int64_t in = model_.width(layer.index);
  if (layer.z.rows() > 0) return rows(layer.z, b);
  if (ys_hold_grad_z(model_, layer.index, last_, rows_, outputs_after_backward_))
    return {layer.y.data() + b.begin * model_.width(layer.index + 1), b.size(), in, in};
  return scratch(kGradZ, b.size(), in);
}

// Y's rows of b, no narrower than dY Wᵀ's (the layer's input), hold it packed at their
// start: piece by piece in row order, the ReLU's backward reads a piece's rows of Y before
// dY Wᵀ is written over them, and the rows written end no later than the piece's own. Y
// is dead once read with one block per pass; or, with a whole backward, on the stage's
// last layer, whose Y is no history here (the next layer's lies on the next stage) and was
// sent as the forward ran. Chunk by chunk, Y's rows are the next layer's history or wait
// for their chunk's backward. Not GIN (Y is its MLP's output, H its conv's).
bool ConvStage::ys_hold_grad_z(const ModelConfig& model, int l, int last, const StageRows& r,
                               bool outputs_read) {
  const bool y_dead = r.shares || (r.whole_backward && l + 1 == last && !outputs_read);
  return y_dead && model.kind != ModelKind::kGin && model.width(l) <= model.width(l + 1);
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

}  // namespace strata
