#include "strata/layers/stage.h"

#include "strata/layers/model.h"

namespace strata {
namespace {

std::vector<TensorShape> stage_shapes(const ModelConfig& model, int first, int last) {
  STRATA_CHECK(0 <= first && first < last && last <= model.num_layers, "stage layers [", first,
               ", ", last, ") of ", model.num_layers);
  const auto [begin, end] = stage_tensor_range(model, first, last);
  const std::vector<TensorShape> all = parameter_shapes(model);
  return {all.begin() + static_cast<std::ptrdiff_t>(begin),
          all.begin() + static_cast<std::ptrdiff_t>(end)};
}

}  // namespace

Stage::Stage(const StageSetup& setup, int first, int last)
    : backend_(setup.backend),
      model_(setup.model),
      graph_(setup.graph),
      features_(setup.features),
      stale_(setup.stale),
      stale_weight_(setup.stale_weight),
      parameters_(setup.backend, stage_shapes(setup.model, first, last),
                  initial_values(stage_shapes(setup.model, first, last), setup.model.seed)),
      whole_backward_(setup.whole_backward),
      whole_rows_only_(!graph_.has_halo() &&
                       (whole_backward_ || (!graph_.chunked() && stale_ == StaleGrad::kDrop))) {
  STRATA_CHECK((first == 0) == (features_ != nullptr), "features belong to the stage with layer 0");
  STRATA_CHECK(features_ == nullptr ||
                   (features_->rows() == graph_.rows() && features_->cols() == model_.in_features),
               "stage features are ", features_ ? features_->rows() : 0, "x",
               features_ ? features_->cols() : 0, ", expected ", graph_.rows(), "x",
               model_.in_features);
}

void Stage::drop(MatrixView m, const Block& b, int layer) const {
  if (dropping()) backend_.dropout(m, graph_.ids(b), model_.dropout, model_.seed, epoch_, layer);
}

void Stage::copy_dropped(ConstMatrixView src, MatrixView dst, const Block& b, int layer) const {
  if (dropping())
    backend_.dropout_copy(src, dst, graph_.ids(b), model_.dropout, model_.seed, epoch_, layer);
  else if (src.data != dst.data)
    backend_.copy(src, dst);
}

kernels::DropInto Stage::drop_into(MatrixView dst, const Block& b, int layer) const {
  return {dst, graph_.ids(b), dropping() ? model_.dropout : 0.0f, model_.seed, epoch_, layer};
}

// Halo rows too: their owners drop them with the same (seed, epoch, layer, vertex) mask.
void Stage::drop_history(kernels::Tensor& p, int layer) const {
  const Block every_column{0, graph_.columns(), -1};
  if (graph_.chunked()) drop(rows(p, every_column), every_column, layer);
}

Features& Stage::dropped_features() {
  features_->drop(graph_.ids(graph_.every_row()), dropping() ? model_.dropout : 0.0f, model_.seed,
                  epoch_);
  return *features_;
}

kernels::Tensor Stage::gradient_buffer(std::int64_t width) const {
  return whole_rows_only_ ? kernels::Tensor() : tensor(graph_.columns(), width);
}

void Stage::propagate_back(kernels::Tensor& g, const Block& b, ConstMatrixView grad,
                           MatrixView out) {
  if (start_propagate(g, b, grad, out)) take_propagated(g, b, b, out);
}

bool Stage::start_propagate(kernels::Tensor& g, const Block& b, ConstMatrixView grad,
                            MatrixView out) {
  if (whole_rows_only_) {
    graph_.transpose_multiply(b, grad, out);
    return false;
  }
  graph_.scatter_gradient(b, grad, g.view());
  return true;
}

// The interior pieces come first, and no other part adds to their rows.
void Stage::take_propagated(kernels::Tensor& g, const Block& b, const Block& piece,
                            MatrixView out) {
  if (piece.chunk != kInteriorPiece) graph_.exchange_gradient(b, g.view());
  take_gradient(g, piece, out);
}

// Gradient that reaches g[b] after this (along edges read from history) is stale: with
// StaleGrad::kDelay it must start from zero to be carried into the next epoch; dropped, it
// is never read before begin_epoch zeroes g. out may be g[b] itself (ConvStage::g_in_grads).
void Stage::take_gradient(kernels::Tensor& g, const Block& b, MatrixView out) const {
  const MatrixView block = rows(g, b);
  if (block.data != out.data) backend_.copy(block, out);
  if (stale_ == StaleGrad::kDelay) zero(block);
}

void Stage::carry_stale(kernels::Tensor& g) const {
  if (stale_ == StaleGrad::kDelay && stale_weight_ != 1.0f && g.size() > 0)
    backend_.scale(g.view(), stale_weight_);
}

void Stage::zero(kernels::Tensor& t) const {
  backend_.zero(t.data(), static_cast<std::size_t>(t.size()) * sizeof(float));
}

void Stage::zero(MatrixView m) const {
  STRATA_CHECK(m.stride == m.cols || m.rows <= 1, "zero of a strided view");
  backend_.zero(m.data, static_cast<std::size_t>(m.rows * m.cols) * sizeof(float));
}

MatrixView Stage::scratch(int which, std::int64_t r, std::int64_t c) {
  const auto i = static_cast<std::size_t>(which);
  if (scratch_.size() <= i) scratch_.resize(i + 1);
  const auto bytes = static_cast<std::size_t>(r * c) * sizeof(float);
  if (scratch_[i].bytes() < bytes) scratch_[i] = kernels::Buffer(backend_, bytes);
  return {scratch_[i].as<float>(), r, c, c};
}

}  // namespace strata
