#include "strata/pipeline/backend_gcnii_stage.h"

#include "strata/pipeline/backend_stage_halo.h"
#include "strata/pipeline/stage_buffers.h"

namespace strata {

using stage::columns;

namespace {

enum Scratch { kGradH, kGradH0, kGradZ };

}  // namespace

// Tensors in parameters_: input W, b (first stage), one W per conv, output W, b (last).
BackendGcniiStage::BackendGcniiStage(const BackendStageSetup& setup, int first, int last)
    : BackendStage(setup, stage_tensor_range(setup.model, first, last)), hidden_(model_.hidden) {
  STRATA_CHECK(0 <= first && first < last && last <= model_.num_layers, "stage convs [", first,
               ", ", last, ") of ", model_.num_layers);
  STRATA_CHECK((first == 0) == (setup.features != nullptr),
               "features belong to the stage with conv 1");
  const std::int64_t n = layout_.a_hat.rows, cols = layout_.a_hat.cols, h = hidden_;
  std::size_t t = 0;
  if (first == 0) {
    input_ = BackendLinear{t};
    t += 2;
    g0_ = tensor(n, h);
  } else {
    boundary_in_ = tensor(n, 2 * h);
    grad_in_ = tensor(n, 2 * h);
  }
  for (int j = first; j < last; ++j)
    convs_.push_back({BackendGcniiConv(model_, j + 1, t++), j + 1, tensor(cols, h), tensor(n, h),
                      tensor(n, h), tensor(cols, h)});
  if (last == model_.num_layers) {
    output_ = BackendLinear{t};
    q_ = tensor(n, h);
    logits_ = tensor(n, model_.classes);
    grad_logits_ = tensor(n, model_.classes);
  } else {
    boundary_out_ = tensor(n, 2 * h);
    grad_out_ = tensor(n, 2 * h);
  }
  h0_ = tensor(n, h);
}

void BackendGcniiStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  if (stale_ == StaleGrad::kDrop)
    for (Conv& conv : convs_) zero(conv.g);
  if (first_stage()) prepare_input();
}

// h0 and conv 1's P for every row at once: they depend on the static features only, so
// conv 1 reads no history at all.
void BackendGcniiStage::prepare_input() {
  const ChunkBlock every = every_row();
  input_->forward(backend_, parameters_, dropped_features(), h0_.view());
  backend_.relu_forward(h0_.view(), h0_.view());
  Conv& conv1 = convs_.front();
  const MatrixView p = rows(conv1.p, every);
  backend_.copy(h0_.view(), p);
  drop(p, every, conv1.layer);
  if (halo_) halo_->forward(every, conv1.p, training_);
}

ConstMatrixView BackendGcniiStage::output_rows(const ChunkBlock& b) const {
  return last_stage() ? rows(logits_, b) : rows(boundary_out_, b);
}
MatrixView BackendGcniiStage::output_grad_rows(const ChunkBlock& b) {
  return last_stage() ? rows(grad_logits_, b) : rows(grad_out_, b);
}

void BackendGcniiStage::forward(const ChunkBlock& b) {
  ConstMatrixView h;  // null for conv 1, whose P prepare_input() filled
  if (!first_stage()) {
    const ConstMatrixView in = rows(boundary_in_, b);
    backend_.copy(columns(in, hidden_, 2 * hidden_), rows(h0_, b));
    h = columns(in, 0, hidden_);
  }
  for (Conv& conv : convs_) {
    forward_conv(conv, b, h);
    h = rows(conv.y, b);
  }
  if (last_stage()) {
    forward_output(b, h);
    return;
  }
  const MatrixView out = rows(boundary_out_, b);
  backend_.copy(h, columns(out, 0, hidden_));
  backend_.copy(rows(h0_, b), columns(out, hidden_, 2 * hidden_));
}

void BackendGcniiStage::forward_conv(Conv& conv, const ChunkBlock& b, ConstMatrixView h) {
  const MatrixView p = rows(conv.p, b), s = rows(conv.s, b), y = rows(conv.y, b);
  if (h.data != nullptr) {
    backend_.copy(h, p);
    drop(p, b, conv.layer);
    if (halo_) halo_->forward(b, conv.p, training_);
  }
  blocks_.aggregate(b, conv.p.view(), s);
  conv.params.forward(backend_, parameters_, s, rows(h0_, b), y);
  backend_.relu_forward(y, y);
}

void BackendGcniiStage::forward_output(const ChunkBlock& b, ConstMatrixView h) {
  const MatrixView q = rows(q_, b);
  backend_.copy(h, q);
  drop(q, b, model_.num_layers + 1);
  output_->forward(backend_, parameters_, q, rows(logits_, b));
}

void BackendGcniiStage::backward(const ChunkBlock& b) {
  const std::int64_t n = b.end - b.begin;
  const MatrixView grad_h = scratch(kGradH, n, hidden_);
  const MatrixView grad_h0 = scratch(kGradH0, n, hidden_);
  if (last_stage()) {
    const ConstMatrixView grad_logits = rows(grad_logits_, b);
    output_->accumulate(backend_, parameters_, rows(q_, b), grad_logits);
    output_->input_grad(backend_, parameters_, grad_logits, grad_h);
    drop(grad_h, b, model_.num_layers + 1);
    backend_.zero(grad_h0.data, static_cast<std::size_t>(n * hidden_) * sizeof(float));
  } else {
    const ConstMatrixView in = rows(grad_out_, b);
    backend_.copy(columns(in, 0, hidden_), grad_h);
    backend_.copy(columns(in, hidden_, 2 * hidden_), grad_h0);
  }
  for (auto conv = convs_.rbegin(); conv != convs_.rend(); ++conv)
    backward_conv(*conv, b, grad_h, grad_h0);
  if (first_stage()) {
    finish_input(b, grad_h, grad_h0);
    return;
  }
  const MatrixView out = rows(grad_in_, b);
  backend_.copy(grad_h, columns(out, 0, hidden_));
  backend_.copy(grad_h0, columns(out, hidden_, 2 * hidden_));
}

// grad_h: d loss / d Y of the conv on entry, d loss / d its input h on return.
void BackendGcniiStage::backward_conv(Conv& conv, const ChunkBlock& b, MatrixView grad_h,
                                      MatrixView grad_h0) {
  backend_.relu_backward(rows(conv.y, b), grad_h, grad_h);
  const MatrixView grad_z = scratch(kGradZ, b.end - b.begin, hidden_);
  conv.params.backward(backend_, parameters_, rows(conv.s, b), grad_h, grad_h0, grad_z);
  blocks_.scatter_gradient(b, grad_z, conv.g.view());
  if (halo_) halo_->backward(b, conv.g);
  take_gradient(conv.g, b, grad_h);
  drop(grad_h, b, conv.layer);
}

// h0 is conv 1's input and every conv's residual: its gradient is the sum of both.
void BackendGcniiStage::finish_input(const ChunkBlock& b, MatrixView grad_h,
                                     ConstMatrixView grad_h0) {
  backend_.axpy(1.0f, grad_h0, grad_h);
  backend_.relu_backward(rows(h0_, b), grad_h, grad_h);
  backend_.copy(grad_h, rows(g0_, b));
}

void BackendGcniiStage::end_backward() {
  if (first_stage()) input_->accumulate(backend_, parameters_, *features_, g0_.view());
}

// Conv 1's P is computed whole from the features each pass: only later convs read history.
std::vector<kernels::Tensor*> BackendGcniiStage::history_buffers() {
  std::vector<kernels::Tensor*> buffers;
  for (Conv& conv : convs_)
    if (conv.layer > 1) buffers.push_back(&conv.p);
  return buffers;
}

std::vector<kernels::Tensor*> BackendGcniiStage::carried_buffers() {
  std::vector<kernels::Tensor*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Conv& conv : convs_)
      if (conv.g.rows() > 0) buffers.push_back(&conv.g);
  return buffers;
}

}  // namespace strata
