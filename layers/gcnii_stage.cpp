#include "gcnii_stage.h"

#include <cmath>

namespace strata {
namespace {

enum Scratch { kGradH, kGradH0, kGradZ };

}  // namespace

float GcniiStage::beta_of(float lambda, int layer) {
  return static_cast<float>(std::log(static_cast<double>(lambda) / layer + 1.0));
}

// Tensors in parameters_: W_in, b_in (first stage), one W per conv, W_out, b_out (last).
GcniiStage::GcniiStage(const StageSetup& setup, int first, int last)
    : Stage(setup, first, last), hidden_(model_.hidden) {
  const std::int64_t n = graph_.rows(), cols = graph_.columns(), h = hidden_;
  std::size_t t = 0;
  if (first == 0) {
    input_ = t;
    t += 2;
    g0_ = tensor(n, h);
  } else {
    boundary_in_ = tensor(n, 2 * h);
    grad_in_ = tensor(n, 2 * h);
  }
  for (int j = first; j < last; ++j) {
    // Without a halo a later conv's P is the previous y, dropped in place: y's ReLU backward
    // reads the same zeros either way, and chunked, y's rows outside the chunk are history.
    kernels::Tensor p = j > first && !graph_.has_halo()
                            ? kernels::Tensor::view_of(convs_.back().y.data(), cols, h)
                            : tensor(cols, h);
    convs_.push_back({t++, j + 1, beta_of(model_.lambda, j + 1), std::move(p), tensor(n, h),
                      tensor(n, h), gradient_buffer(h), tensor(h, h)});
  }
  if (last == model_.num_layers) {
    output_ = t;
    q_ = tensor(n, h);
    logits_ = tensor(n, model_.classes);
    grad_logits_ = tensor(n, model_.classes);
  } else {
    boundary_out_ = tensor(n, 2 * h);
    grad_out_ = tensor(n, 2 * h);
  }
  h0_ = tensor(n, h);
  Matrix identity(h, h, 0.0f);
  for (std::int64_t i = 0; i < h; ++i) identity.at(i, i) = 1.0f;
  identity_ = kernels::to_backend(backend_, identity.view());
}

// s (beta W + (1 - beta) I) is beta s W + (1 - beta) s in one product (and its gradient
// dy (beta W + (1 - beta) I)ᵀ likewise), rounded once instead of twice.
void GcniiStage::map_weights() {
  for (Conv& conv : convs_) {
    backend_.copy(identity_.view(), conv.mapped.view());
    backend_.mix(conv.beta, parameters_.value(conv.weight), 1.0f - conv.beta, conv.mapped.view());
  }
}

void GcniiStage::linear(std::size_t t, ConstMatrixView x, MatrixView y) const {
  backend_.gemm(false, false, 1.0f, x, parameters_.value(t), 0.0f, y);
  backend_.add_bias_rows(y, parameters_.value(t + 1).data);
}

void GcniiStage::linear_backward(std::size_t t, ConstMatrixView x, ConstMatrixView grad_y) {
  backend_.gemm_tn_accumulate(1.0f, x, grad_y, parameters_.sum(t));
  backend_.column_sums_accumulate(grad_y, parameters_.sum(t + 1));
}

void GcniiStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  map_weights();
  if (training && !whole_rows_only())
    for (Conv& conv : convs_) {
      if (stale_ == StaleGrad::kDrop || conv.layer == 1)
        zero(conv.g);
      else
        carry_stale(conv.g);
    }
  for (Conv& conv : convs_)
    if (conv.layer > 1) drop_history(conv.p, conv.layer);
  if (first_stage()) prepare_input();
}

// h0 and conv 1's P for every row at once: they depend on the static features only, so
// conv 1 reads no history at all.
void GcniiStage::prepare_input() {
  const Block every = graph_.every_row();
  dropped_features().multiply(parameters_.value(*input_), h0_.view());
  backend_.add_bias_rows(h0_.view(), parameters_.value(*input_ + 1).data);
  backend_.relu_forward(h0_.view(), h0_.view());
  Conv& conv1 = convs_.front();
  const MatrixView p = rows(conv1.p, every);
  copy_dropped(h0_.view(), p, every, conv1.layer);
  graph_.exchange(every, conv1.p.view(), training_);
}

ConstMatrixView GcniiStage::output_rows(const Block& b) const {
  return last_stage() ? rows(logits_, b) : rows(boundary_out_, b);
}

MatrixView GcniiStage::output_grad_rows(const Block& b) {
  return last_stage() ? rows(grad_logits_, b) : rows(grad_out_, b);
}

void GcniiStage::forward(const Block& b) {
  ConstMatrixView h;  // null for conv 1, whose P prepare_input() filled
  if (!first_stage()) {
    const ConstMatrixView in = rows(boundary_in_, b);
    backend_.copy(columns(in, hidden_, 2 * hidden_), rows(h0_, b));
    h = columns(in, 0, hidden_);
  }
  for (std::size_t j = 0; j < convs_.size(); ++j) {
    forward_conv(j, b, h);
    h = rows(convs_[j].y, b);
  }
  if (last_stage()) {
    forward_output(b, h);
    return;
  }
  const MatrixView out = rows(boundary_out_, b);
  backend_.copy(h, columns(out, 0, hidden_));
  backend_.copy(rows(h0_, b), columns(out, hidden_, 2 * hidden_));
}

// P is whole before it is exchanged; then b is finished piece by piece (BlockGraph::
// pieces), the interior ones while the halo travels. A conv after the stage's first finds
// its P's rows of b dropped by the conv before it (next_input); the first conv of a later
// stage drops the boundary's h itself, and conv 1's P prepare_input() made and exchanged.
void GcniiStage::forward_conv(std::size_t j, const Block& b, ConstMatrixView h) {
  Conv& conv = convs_[j];
  if (j == 0 && h.data != nullptr) copy_dropped(h, rows(conv.p, b), b, conv.layer);
  if (j > 0 || h.data != nullptr) graph_.exchange(b, conv.p.view(), training_);
  for (const Block& piece : graph_.pieces(b)) aggregate_conv(conv, piece, next_input(j, piece));
}

// Where conv j's output rows go next, dropped: the next conv's P or the output layer's q
// (nowhere when the next stage takes them).
kernels::DropInto GcniiStage::next_input(std::size_t j, const Block& b) {
  if (j + 1 < convs_.size()) return drop_into(rows(convs_[j + 1].p, b), b, convs_[j + 1].layer);
  if (last_stage()) return drop_into(rows(q_, b), b, model_.num_layers + 1);
  return {};
}

void GcniiStage::aggregate_conv(Conv& conv, const Block& b, const kernels::DropInto& next) {
  const MatrixView s = rows(conv.s, b), y = rows(conv.y, b);
  graph_.aggregate(b, conv.p.view(), s);
  const float alpha = model_.alpha;
  backend_.mix_gemm_relu(alpha, rows(h0_, b), 1.0f - alpha, s, conv.mapped.view(), y, next);
}

// q holds the last conv's output, dropped (next_input), unless the stage has no conv.
void GcniiStage::forward_output(const Block& b, ConstMatrixView h) {
  const MatrixView q = rows(q_, b);
  if (convs_.empty()) copy_dropped(h, q, b, model_.num_layers + 1);
  linear(*output_, q, rows(logits_, b));
}

// Conv by conv, piece by piece (BlockGraph::pieces): the interior pieces of a conv run
// while the halo's share of the gradient of the conv after it travels; the boundary piece
// waits for it. Each conv then starts its own gradient through Âᵀ.
void GcniiStage::backward(const Block& b) {
  const MatrixView grad_h = scratch(kGradH, b.size(), hidden_);
  const MatrixView grad_h0 = scratch(kGradH0, b.size(), hidden_);
  const MatrixView grad_z = scratch(kGradZ, b.size(), hidden_);
  start_backward(b, grad_h, grad_h0);
  const std::vector<Block> pieces = graph_.pieces(b);
  Conv* arriving = nullptr;  // the conv whose d loss / d P is still being gathered
  int owed = 0;              // the layer whose dropout grad_h (d loss / d P) still owes, 0 for none
  for (auto conv = convs_.rbegin(); conv != convs_.rend(); ++conv) {
    for (const Block& piece : pieces) {
      const MatrixView h = piece_rows(grad_h, b, piece);
      if (arriving != nullptr) take_propagated(arriving->g, b, piece, h);
      backward_conv(*conv, piece, h, piece_rows(grad_h0, b, piece), piece_rows(grad_z, b, piece),
                    owed);
      if (piece.chunk == kInteriorPiece) graph_.progress();
    }
    arriving = propagate_conv(*conv, b, grad_z, grad_h) ? &*conv : nullptr;
    owed = conv->layer == 1 && defers_first_conv() ? 0 : conv->layer;
  }
  if (arriving != nullptr) take_propagated(arriving->g, b, b, grad_h);
  if (owed != 0) drop(grad_h, b, owed);
  if (first_stage()) {
    finish_input(b, grad_h, grad_h0);
    return;
  }
  const MatrixView out = rows(grad_in_, b);
  backend_.copy(grad_h, columns(out, 0, hidden_));
  backend_.copy(grad_h0, columns(out, hidden_, 2 * hidden_));
}

// d loss / d (the last conv's y) and d loss / d h0 from the output layer or the next stage.
void GcniiStage::start_backward(const Block& b, MatrixView grad_h, MatrixView grad_h0) {
  if (last_stage()) {
    const ConstMatrixView grad_logits = rows(grad_logits_, b);
    linear_backward(*output_, rows(q_, b), grad_logits);
    backend_.gemm(false, true, 1.0f, grad_logits, parameters_.value(*output_), 0.0f, grad_h);
    drop(grad_h, b, model_.num_layers + 1);
    zero(grad_h0);
    return;
  }
  const ConstMatrixView in = rows(grad_out_, b);
  backend_.copy(columns(in, 0, hidden_), grad_h);
  backend_.copy(columns(in, hidden_, 2 * hidden_), grad_h0);
}

// The rows b (a piece) of a conv's backward up to its aggregation. grad_h: d loss / d y on
// entry, still to be dropped as the next layer `owed` dropped y (0: it was); from dy (after
// that and the ReLU): ds = (1 - beta) dy + beta dy Wᵀ, dW += beta sᵀ dy, dh0 += alpha ds, and
// grad_z = dz = (1 - alpha) ds, what propagate_conv sends through Âᵀ.
void GcniiStage::backward_conv(const Conv& conv, const Block& b, MatrixView grad_h,
                               MatrixView grad_h0, MatrixView grad_z, int owed) {
  const kernels::DropInto drop = owed != 0 ? drop_into(grad_h, b, owed) : kernels::DropInto{};
  const kernels::WeightGradient weight{conv.beta, rows(conv.s, b), parameters_.sum(conv.weight)};
  backend_.relu_gemm_split(rows(conv.y, b), grad_h, conv.mapped.view(), grad_z, model_.alpha,
                           grad_h0, 1.0f - model_.alpha, drop, weight);
}

// dh = Âᵀ dz (undropped), started; true when its rows are still to be taken
// (take_propagated), false when grad_h already holds them (whole rows only) or conv 1
// defers them.
bool GcniiStage::propagate_conv(Conv& conv, const Block& b, ConstMatrixView grad_z,
                                MatrixView grad_h) {
  if (conv.layer == 1 && defers_first_conv()) {
    graph_.scatter_gradient(b, grad_z, conv.g.view());
    return false;
  }
  return start_propagate(conv.g, b, grad_z, grad_h);
}

// h0 is conv 1's input and every conv's residual: its gradient is the sum of both. With
// conv 1 deferred, b's rows keep the residuals' share until end_backward adds conv 1's.
void GcniiStage::finish_input(const Block& b, MatrixView grad_h, ConstMatrixView grad_h0) {
  if (defers_first_conv()) {
    backend_.copy(grad_h0, rows(g0_, b));
    return;
  }
  backend_.axpy(1.0f, grad_h0, grad_h);
  backend_.relu_backward(rows(h0_, b), grad_h, grad_h);
  backend_.copy(grad_h, rows(g0_, b));
}

// Conv 1 reads P = dropout(h0), computed for every row before any block runs, so no block
// reads it from history: d loss / d P is whole only once every block has scattered, the
// blocks that ran before b as much as those after it.
void GcniiStage::finish_first_conv() {
  Conv& conv1 = convs_.front();
  const Block every = graph_.every_row();
  graph_.exchange_gradient(every, conv1.g.view());
  const MatrixView grad_p = rows(conv1.g, every);
  drop(grad_p, every, conv1.layer);
  backend_.axpy(1.0f, grad_p, g0_.view());
  backend_.relu_backward(h0_.view(), g0_.view(), g0_.view());
}

void GcniiStage::end_backward() {
  if (!first_stage()) return;
  if (defers_first_conv()) finish_first_conv();
  features_->accumulate_transposed(g0_.view(), parameters_.sum(*input_));
  backend_.column_sums_accumulate(g0_.view(), parameters_.sum(*input_ + 1));
}

// Conv 1's P is computed whole from the features each pass: only later convs read history.
std::vector<kernels::Tensor*> GcniiStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Conv& conv : convs_)
    if (conv.layer > 1) buffers.push_back(&conv.p);
  return buffers;
}

std::vector<const kernels::Tensor*> GcniiStage::layer_outputs() const {
  std::vector<const kernels::Tensor*> outputs;
  for (const Conv& conv : convs_) outputs.push_back(&conv.y);
  return outputs;
}

std::vector<kernels::Tensor*> GcniiStage::carried_buffers() {
  std::vector<kernels::Tensor*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Conv& conv : convs_)
      if (conv.layer > 1 && conv.g.rows() > 0) buffers.push_back(&conv.g);
  return buffers;
}

}  // namespace strata
