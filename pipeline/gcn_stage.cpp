#include "strata/pipeline/pipeline_stage.h"

#include "strata/kernels/kernels.h"

namespace strata {

namespace {

int width_of(const GcnConfig& c, int l) {
  if (l == 0) return c.in_features;
  return l == c.num_layers ? c.classes : c.hidden;
}

MatrixView rows(Matrix& m, const ChunkBlock& b) {
  return m.view().rows_range(b.begin, b.end);
}
ConstMatrixView rows(const Matrix& m, const ChunkBlock& b) {
  return m.view().rows_range(b.begin, b.end);
}

// A rows x cols view over buffer, which only ever grows: chunks differ in size, and the
// per-chunk scratch must not be reallocated on every chunk and layer.
MatrixView scratch(std::vector<float>& buffer, std::int64_t r, std::int64_t c) {
  const auto size = static_cast<std::size_t>(r * c);
  if (buffer.size() < size) buffer.resize(size);
  return {buffer.data(), r, c, c};
}

void ensure_shape(Matrix& m, std::int64_t r, std::int64_t c) {
  if (m.rows() != r || m.cols() != c) m = Matrix(r, c);
}

}  // namespace

PipelineStage::PipelineStage(const GcnConfig& model, int first, int last, const ChunkLayout& layout,
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

std::span<const GlobalId> PipelineStage::ids(const ChunkBlock& b) const {
  return std::span(layout_.order).subspan(b.begin, b.end - b.begin);
}

void PipelineStage::drop(MatrixView m, const ChunkBlock& b, int layer) const {
  if (dropping()) kernels::dropout(m, ids(b), model_.dropout, model_.seed, epoch_, layer);
}

void PipelineStage::begin_epoch(std::int64_t epoch, bool training) {
  epoch_ = epoch;
  training_ = training;
  for (Layer& layer : layers_)
    if (layer.g.rows() > 0 && (layer.index == 0 || stale_ == StaleGrad::kDrop))
      kernels::zero(layer.g.view());
  if (first_ == 0) prepare_layer0();
}

// P of layer 0 for every row at once: the features are static, so nothing is historical.
void PipelineStage::prepare_layer0() {
  Layer& layer = layers_.front();
  const std::span<const GlobalId> all(layout_.order);
  if (sparse_) {
    if (dropping())
      sparse_->dropout(all, model_.dropout, model_.seed, epoch_, 0);
    else
      sparse_->reset();
    if (layer.transform_after)
      sparse_->to_dense(layer.p.view());
    else
      kernels::spmm(sparse_->view(), layer.params.weight().view(), layer.p.view());
    return;
  }
  const Matrix& x = features_->dense();
  ensure_shape(dropped_features_, x.rows(), x.cols());
  kernels::copy(x.view(), dropped_features_.view());
  if (dropping())
    kernels::dropout(dropped_features_.view(), all, model_.dropout, model_.seed, epoch_, 0);
  if (layer.transform_after)
    kernels::copy(dropped_features_.view(), layer.p.view());
  else
    kernels::gemm(false, false, 1.0f, dropped_features_.view(), layer.params.weight().view(), 0.0f,
                  layer.p.view());
}

MatrixView PipelineStage::input_rows(const ChunkBlock& b) {
  return rows(input_raw_, b);
}

void PipelineStage::forward(const ChunkBlock& b) {
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

void PipelineStage::forward_layer(Layer& layer, const ChunkBlock& b) {
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

ConstMatrixView PipelineStage::output_rows(const ChunkBlock& b) const {
  return rows(layers_.back().y, b);
}

MatrixView PipelineStage::output_grad_rows(const ChunkBlock& b) {
  return rows(output_grad_, b);
}

ConstMatrixView PipelineStage::input_grad_rows(const ChunkBlock& b) const {
  return rows(input_grad_, b);
}

void PipelineStage::backward(const ChunkBlock& b) {
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
    take_gradient(layer, b, grad);
  }
}

// d loss / d P rows of this block are complete once its own backward has scattered: the
// blocks that read them fresh ran backward before it. The rows restart from zero.
void PipelineStage::take_gradient(Layer& layer, const ChunkBlock& b, MatrixView out) {
  kernels::copy(rows(layer.g, b), out);
  kernels::zero(rows(layer.g, b));
  drop(out, b, layer.index);
}

void PipelineStage::backward_layer(Layer& layer, const ChunkBlock& b, MatrixView grad_y) {
  if (layer.index + 1 < model_.num_layers) kernels::relu_backward(rows(layer.y, b), grad_y, grad_y);
  auto params = layer.params.parameters();
  if (model_.bias) kernels::column_sums_accumulate(grad_y, params[1].grad_sum);
  if (!layer.transform_after) {
    scatter_gradient(layer, b, grad_y);
    return;
  }
  kernels::gemm_tn_accumulate(rows(layer.z, b), grad_y, params[0].grad_sum);
  if (layer.index == 0) return;  // the features need no gradient
  const MatrixView grad_z = scratch(scratch_z_, b.end - b.begin, layer.params.in());
  kernels::gemm(false, true, 1.0f, grad_y, layer.params.weight().view(), 0.0f, grad_z);
  scatter_gradient(layer, b, grad_z);
}

// G[touched] += Â[block, touched]ᵀ · grad_z. Rows of blocks whose backward already ran
// receive gradient that is either dropped or kept for next epoch (StaleGrad).
void PipelineStage::scatter_gradient(Layer& layer, const ChunkBlock& b, ConstMatrixView grad_z) {
  const MatrixView touched =
      scratch(scratch_touched_, static_cast<std::int64_t>(b.touched.size()), grad_z.cols);
  kernels::spmm(b.transposed.view(), grad_z, touched);
  const MatrixView g = layer.g.view();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < b.touched.size(); ++i) {
    float* out = g.row(b.touched[i]);
    const float* in = touched.row(static_cast<std::int64_t>(i));
    for (std::int64_t c = 0; c < g.cols; ++c) out[c] += in[c];
  }
}

void PipelineStage::end_backward() {
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

ParameterList PipelineStage::parameters() {
  ParameterList list;
  for (Layer& layer : layers_)
    for (const Parameter& p : layer.params.parameters()) list.push_back(p);
  return list;
}

void PipelineStage::zero_grad() {
  for (Layer& layer : layers_) layer.params.zero_grad();
}

}  // namespace strata
