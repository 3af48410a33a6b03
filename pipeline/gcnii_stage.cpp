#include "strata/pipeline/gcnii_stage.h"

#include "strata/kernels/kernels.h"
#include "strata/pipeline/gcn_stage.h"
#include "strata/pipeline/stage_buffers.h"

namespace strata {

using stage::columns;
using stage::rows;
using stage::scratch;

GcniiStage::GcniiStage(const ModelConfig& model, int first, int last, const ChunkLayout& layout,
                       const FeatureMatrix* features, StaleGrad stale, StageHalo* halo)
    : model_(model),
      hidden_(model.hidden),
      layout_(layout),
      features_(features),
      stale_(stale),
      halo_(halo) {
  STRATA_CHECK(0 <= first && first < last && last <= model.num_layers, "stage convs [", first, ", ",
               last, ") of ", model.num_layers);
  STRATA_CHECK((first == 0) == (features != nullptr), "features belong to the stage with conv 1");
  const std::int64_t n = layout.a_hat.rows, cols = layout.a_hat.cols, h = hidden_;
  if (first == 0) {
    input_.emplace(model.in_features, hidden_, model.seed, 0);
    g0_ = Matrix(n, h);
    if (features->is_sparse()) sparse_.emplace(features->sparse().view());
  } else {
    boundary_in_ = Matrix(n, 2 * h);
    grad_in_ = Matrix(n, 2 * h);
  }
  for (int j = first; j < last; ++j)
    convs_.push_back({GcniiConv(hidden_, model.alpha, model.lambda, model.seed, j + 1), j + 1,
                      Matrix(cols, h), Matrix(n, h), Matrix(n, h), Matrix(cols, h)});
  if (last == model.num_layers) {
    output_.emplace(hidden_, model.classes, model.seed, model.num_layers + 1);
    q_ = Matrix(n, h);
    logits_ = Matrix(n, model.classes);
    grad_logits_ = Matrix(n, model.classes);
  } else {
    boundary_out_ = Matrix(n, 2 * h);
    grad_out_ = Matrix(n, 2 * h);
  }
  h0_ = Matrix(n, h);
}

void GcniiStage::drop(MatrixView m, const ChunkBlock& b, int layer) const {
  if (dropping())
    kernels::dropout(m, stage::block_ids(layout_, b), model_.dropout, model_.seed, epoch_, layer);
}

void GcniiStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  if (stale_ == StaleGrad::kDrop)
    for (Conv& conv : convs_) kernels::zero(conv.g.view());
  if (first_stage()) prepare_input();
}

// h0 and conv 1's P for every row at once: they depend on the static features only, so
// conv 1 reads no history at all (as layer 0 of the GCN stage).
void GcniiStage::prepare_input() {
  const ChunkBlock every{0, layout_.a_hat.rows, {}, {}, -1};
  stage::drop_features(*features_, sparse_, dropped_features_, stage::block_ids(layout_, every),
                       dropping() ? model_.dropout : 0.0f, model_.seed, epoch_);
  forward_input(every);
  Conv& conv1 = convs_.front();
  const MatrixView p = rows(conv1.p, every);
  kernels::copy(h0_.view(), p);
  drop(p, every, conv1.layer);
  if (halo_) halo_->forward(every, conv1.p, training_);
}

MatrixView GcniiStage::input_rows(const ChunkBlock& b) {
  return rows(boundary_in_, b);
}
ConstMatrixView GcniiStage::input_grad_rows(const ChunkBlock& b) const {
  return rows(grad_in_, b);
}
ConstMatrixView GcniiStage::output_rows(const ChunkBlock& b) const {
  return last_stage() ? rows(logits_, b) : rows(boundary_out_, b);
}
MatrixView GcniiStage::output_grad_rows(const ChunkBlock& b) {
  return last_stage() ? rows(grad_logits_, b) : rows(grad_out_, b);
}

void GcniiStage::forward(const ChunkBlock& b) {
  ConstMatrixView h;  // null for conv 1, whose P prepare_input() filled
  if (!first_stage()) {
    const ConstMatrixView in = rows(boundary_in_, b);
    kernels::copy(columns(in, hidden_, 2 * hidden_), rows(h0_, b));
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
  kernels::copy(h, columns(out, 0, hidden_));
  kernels::copy(rows(h0_, b), columns(out, hidden_, 2 * hidden_));
}

void GcniiStage::forward_input(const ChunkBlock& b) {
  const MatrixView h0 = rows(h0_, b);
  if (sparse_)
    input_->forward(row_block(sparse_->view(), b.begin, b.end), h0);
  else
    input_->forward(rows(dropped_features_, b), h0);
  kernels::relu_forward(h0, h0);
}

void GcniiStage::forward_conv(Conv& conv, const ChunkBlock& b, ConstMatrixView h) {
  const MatrixView p = rows(conv.p, b), s = rows(conv.s, b), y = rows(conv.y, b);
  if (h.data != nullptr) {
    kernels::copy(h, p);
    drop(p, b, conv.layer);
    if (halo_) halo_->forward(b, conv.p, training_);
  }
  kernels::spmm(row_block(layout_.a_hat, b.begin, b.end), conv.p.view(), s);
  conv.params.forward(s, rows(h0_, b), y);
  kernels::relu_forward(y, y);
}

void GcniiStage::forward_output(const ChunkBlock& b, ConstMatrixView h) {
  const MatrixView q = rows(q_, b);
  kernels::copy(h, q);
  drop(q, b, model_.num_layers + 1);
  output_->forward(q, rows(logits_, b));
}

void GcniiStage::backward(const ChunkBlock& b) {
  const std::int64_t n = b.end - b.begin;
  const MatrixView grad_h = scratch(scratch_h_, n, hidden_);
  const MatrixView grad_h0 = scratch(scratch_h0_, n, hidden_);
  if (last_stage()) {
    const ConstMatrixView grad_logits = rows(grad_logits_, b);
    output_->accumulate(rows(q_, b), grad_logits);
    output_->input_grad(grad_logits, grad_h);
    drop(grad_h, b, model_.num_layers + 1);
    kernels::zero(grad_h0);
  } else {
    const ConstMatrixView in = rows(grad_out_, b);
    kernels::copy(columns(in, 0, hidden_), grad_h);
    kernels::copy(columns(in, hidden_, 2 * hidden_), grad_h0);
  }
  for (auto conv = convs_.rbegin(); conv != convs_.rend(); ++conv)
    backward_conv(*conv, b, grad_h, grad_h0);
  if (first_stage()) {
    finish_input(b, grad_h, grad_h0);
    return;
  }
  const MatrixView out = rows(grad_in_, b);
  kernels::copy(grad_h, columns(out, 0, hidden_));
  kernels::copy(grad_h0, columns(out, hidden_, 2 * hidden_));
}

// grad_h: d loss / d Y of the conv on entry, d loss / d its input h on return.
void GcniiStage::backward_conv(Conv& conv, const ChunkBlock& b, MatrixView grad_h,
                               MatrixView grad_h0) {
  kernels::relu_backward(rows(conv.y, b), grad_h, grad_h);
  const MatrixView grad_z = scratch(scratch_z_, b.end - b.begin, hidden_);
  conv.params.backward(rows(conv.s, b), grad_h, grad_h0, grad_z);
  stage::scatter_gradient(b, grad_z, conv.g, scratch_touched_);
  if (halo_) halo_->backward(b, conv.g);
  stage::take_gradient(conv.g, b, grad_h);
  drop(grad_h, b, conv.layer);
}

// h0 is conv 1's input and every conv's residual: its gradient is the sum of both.
void GcniiStage::finish_input(const ChunkBlock& b, MatrixView grad_h, ConstMatrixView grad_h0) {
  kernels::axpy(1.0f, grad_h0, grad_h);
  kernels::relu_backward(rows(h0_, b), grad_h, grad_h);
  kernels::copy(grad_h, rows(g0_, b));
}

void GcniiStage::end_backward() {
  if (first_stage()) {
    if (sparse_)
      input_->accumulate_sparse(sparse_->transposed_view(), g0_.view());
    else
      input_->accumulate(dropped_features_.view(), g0_.view());
    input_->cast_gradients();
  }
  for (Conv& conv : convs_) conv.params.cast_gradients();
  if (last_stage()) output_->cast_gradients();
}

ParameterList GcniiStage::parameters() {
  ParameterList list;
  if (input_) list = input_->parameters();
  for (Conv& conv : convs_)
    for (const Parameter& p : conv.params.parameters()) list.push_back(p);
  if (output_)
    for (const Parameter& p : output_->parameters()) list.push_back(p);
  return list;
}

void GcniiStage::zero_grad() {
  if (input_) input_->zero_grad();
  for (Conv& conv : convs_) conv.params.zero_grad();
  if (output_) output_->zero_grad();
}

// Conv 1's P is computed whole from the features each pass: only later convs read history.
std::vector<Matrix*> GcniiStage::history_buffers() {
  std::vector<Matrix*> buffers;
  for (Conv& conv : convs_)
    if (conv.layer > 1) buffers.push_back(&conv.p);
  return buffers;
}

std::vector<Matrix*> GcniiStage::carried_buffers() {
  std::vector<Matrix*> buffers = history_buffers();
  if (stale_ == StaleGrad::kDelay)
    for (Conv& conv : convs_)
      if (conv.g.rows() > 0) buffers.push_back(&conv.g);
  return buffers;
}

std::unique_ptr<PipelineStage> make_pipeline_stage(const ModelConfig& model, int first, int last,
                                                   const ChunkLayout& layout,
                                                   const FeatureMatrix* features, StaleGrad stale,
                                                   StageHalo* halo) {
  if (model.kind == ModelKind::kGcnii)
    return std::make_unique<GcniiStage>(model, first, last, layout, features, stale, halo);
  return std::make_unique<GcnStage>(model, first, last, layout, features, stale, halo);
}

}  // namespace strata
