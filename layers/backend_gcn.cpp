#include "strata/layers/backend_gcn.h"

#include "strata/layers/gcn_layer.h"
#include "strata/layers/init.h"

namespace strata {
namespace {

constexpr std::size_t kFloat = sizeof(float);

}  // namespace

BackendGcnModel::BackendGcnModel(const ModelConfig& config, const kernels::Backend& backend)
    : config_(config), backend_(backend), shapes_(parameter_shapes(config)) {
  STRATA_CHECK(config.kind == ModelKind::kGcn && config.num_layers >= 1,
               "BackendGcnModel: a gcn model with layers >= 1");
  for (const TensorShape& s : shapes_) {
    offsets_.push_back(total_);
    total_ += s.size();
  }
  values_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  grads_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  std::vector<std::vector<float>> initial;
  for (int l = 0; l < config.num_layers; ++l) {
    Matrix w(width(l), width(l + 1));
    glorot_uniform(w.view(), config.seed, l);
    initial.push_back(w.storage());
    if (config.bias) initial.emplace_back(static_cast<std::size_t>(width(l + 1)), 0.0f);
  }
  set_parameters(initial);
  zero_grad();
  const auto layers = static_cast<std::size_t>(config.num_layers);
  for (auto* v : {&outputs_, &dropped_, &kept_, &scratch_, &input_grads_}) v->resize(layers);
  inputs_.resize(layers);
}

int BackendGcnModel::width(int l) const {
  if (l == 0) return config_.in_features;
  return l == config_.num_layers ? config_.classes : config_.hidden;
}

// Tensor index of layer l's weight; its bias (if any) follows it.
ConstMatrixView BackendGcnModel::weight(int l) const {
  const std::size_t t = static_cast<std::size_t>(l) * (config_.bias ? 2 : 1);
  return {values_.as<float>() + offsets_[t], width(l), width(l + 1), width(l + 1)};
}

MatrixView BackendGcnModel::weight_grad(int l) {
  const std::size_t t = static_cast<std::size_t>(l) * (config_.bias ? 2 : 1);
  return {grads_.as<float>() + offsets_[t], width(l), width(l + 1), width(l + 1)};
}

const float* BackendGcnModel::bias(int l) const {
  return values_.as<float>() + offsets_[static_cast<std::size_t>(2 * l + 1)];
}

float* BackendGcnModel::bias_grad(int l) {
  return grads_.as<float>() + offsets_[static_cast<std::size_t>(2 * l + 1)];
}

kernels::Tensor& BackendGcnModel::sized(kernels::Tensor& t, std::int64_t rows, std::int64_t cols) {
  if (t.rows() != rows || t.cols() != cols) t = kernels::Tensor(backend_, rows, cols);
  return t;
}

// Dropout works on a copy: backward still needs the undropped ReLU output.
ConstMatrixView BackendGcnModel::layer_input(int l, ConstMatrixView features) {
  const ConstMatrixView raw = l == 0 ? features : ConstMatrixView(outputs_[l - 1].view());
  if (!dropping()) return raw;
  kernels::Tensor& copy = sized(dropped_[l], raw.rows, raw.cols);
  backend_.copy(raw, copy.view());
  backend_.dropout(copy.view(), row_ids_, config_.dropout, config_.seed, epoch_, l);
  return copy.view();
}

void BackendGcnModel::forward_layer(Aggregator& aggregator, int l, ConstMatrixView x) {
  const std::int64_t rows = aggregator.owned_rows();
  MatrixView y = sized(outputs_[l], rows, width(l + 1)).view();
  inputs_[l] = x;
  if (GcnLayer::aggregate_first(width(l), width(l + 1))) {
    MatrixView ax = sized(kept_[l], rows, width(l)).view();
    aggregator.forward(x, ax, l);
    backend_.gemm(false, false, 1.0f, ax, weight(l), 0.0f, y);
  } else {
    MatrixView xw = sized(kept_[l], rows, width(l + 1)).view();
    backend_.gemm(false, false, 1.0f, x, weight(l), 0.0f, xw);
    aggregator.forward(xw, y, l);
  }
  if (config_.bias) backend_.add_bias_rows(y, bias(l));
  if (l + 1 < config_.num_layers) backend_.relu_forward(y, y);
}

const kernels::Tensor& BackendGcnModel::forward(Aggregator& aggregator, ConstMatrixView features,
                                                const GlobalId* row_ids, bool training,
                                                std::int64_t epoch) {
  STRATA_CHECK(features.rows == aggregator.owned_rows() && features.cols == width(0),
               "BackendGcnModel::forward: features are ", features.rows, "x", features.cols,
               ", expected ", aggregator.owned_rows(), "x", width(0));
  row_ids_ = row_ids;
  training_ = training;
  epoch_ = epoch;
  for (int l = 0; l < config_.num_layers; ++l)
    forward_layer(aggregator, l, layer_input(l, features));
  forward_done_ = true;
  return outputs_.back();
}

// Aggregate first, Y = (Â X) W: dW += (Â X)ᵀ dY, dX = Âᵀ (dY Wᵀ).
// Transform first, Y = Â (X W): d(XW) = Âᵀ dY, dW += Xᵀ d(XW), dX = d(XW) Wᵀ.
// Layer 0 makes no dX, so an aggregate-first layer 0 exchanges nothing in backward.
void BackendGcnModel::backward_layer(Aggregator& aggregator, int l, ConstMatrixView grad_y) {
  const std::int64_t rows = grad_y.rows;
  const int in = width(l), out = width(l + 1);
  if (config_.bias) backend_.column_sums(grad_y, bias_grad(l), true);
  MatrixView grad_x;
  if (l > 0) grad_x = sized(input_grads_[l], rows, in).view();
  if (GcnLayer::aggregate_first(in, out)) {
    backend_.gemm(true, false, 1.0f, kept_[l].view(), grad_y, 1.0f, weight_grad(l));
    if (l == 0) return;
    MatrixView g = sized(scratch_[l], rows, in).view();
    backend_.gemm(false, true, 1.0f, grad_y, weight(l), 0.0f, g);
    aggregator.backward(g, grad_x, l);
  } else {
    MatrixView g = sized(scratch_[l], rows, out).view();
    aggregator.backward(grad_y, g, l);
    backend_.gemm(true, false, 1.0f, inputs_[l], g, 1.0f, weight_grad(l));
    if (l == 0) return;
    backend_.gemm(false, true, 1.0f, g, weight(l), 0.0f, grad_x);
  }
  if (dropping()) backend_.dropout(grad_x, row_ids_, config_.dropout, config_.seed, epoch_, l);
  backend_.relu_backward(outputs_[l - 1].view(), grad_x, grad_x);
}

void BackendGcnModel::backward(Aggregator& aggregator, ConstMatrixView grad_logits) {
  STRATA_CHECK(forward_done_, "BackendGcnModel::backward before forward");
  ConstMatrixView grad = grad_logits;
  for (int l = config_.num_layers - 1; l >= 0; --l) {
    backward_layer(aggregator, l, grad);
    if (l > 0) grad = input_grads_[l].view();
  }
}

void BackendGcnModel::zero_grad() {
  backend_.zero(grads_.data(), grads_.bytes());
}

std::vector<std::vector<float>> BackendGcnModel::parameters() const {
  std::vector<std::vector<float>> out;
  for (std::size_t t = 0; t < shapes_.size(); ++t) {
    out.emplace_back(static_cast<std::size_t>(shapes_[t].size()));
    if (!out.back().empty())
      backend_.download(out.back().data(), values_.as<float>() + offsets_[t],
                        out.back().size() * kFloat);
  }
  return out;
}

void BackendGcnModel::set_parameters(const std::vector<std::vector<float>>& tensors) {
  STRATA_REQUIRE(tensors.size() == shapes_.size(), "the model has ", shapes_.size(),
                 " parameter tensors, ", tensors.size(), " were given");
  for (std::size_t t = 0; t < shapes_.size(); ++t) {
    STRATA_REQUIRE(static_cast<std::int64_t>(tensors[t].size()) == shapes_[t].size(), "tensor ",
                   shapes_[t].name, " has ", shapes_[t].size(), " values, ", tensors[t].size(),
                   " were given");
    if (!tensors[t].empty())
      backend_.upload(values_.as<float>() + offsets_[t], tensors[t].data(),
                      tensors[t].size() * kFloat);
  }
}

std::vector<float> BackendGcnModel::gradients() const {
  std::vector<float> out(static_cast<std::size_t>(total_));
  if (!out.empty()) backend_.download(out.data(), grads_.data(), out.size() * kFloat);
  return out;
}

}  // namespace strata
