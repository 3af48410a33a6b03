#include "strata/layers/gcnii_model.h"

#include "strata/kernels/kernels.h"

namespace strata {
namespace {

void ensure_shape(Matrix& m, std::int64_t rows, std::int64_t cols) {
  if (m.rows() != rows || m.cols() != cols) m = Matrix(rows, cols);
}

}  // namespace

GcniiModel::GcniiModel(const ModelConfig& config)
    : config_(config),
      input_(config.in_features, config.hidden, config.seed, 0),
      output_(config.hidden, config.classes, config.seed, config.num_layers + 1) {
  STRATA_CHECK(config.num_layers >= 1, "GcniiModel: ", config.num_layers, " layers");
  for (int l = 1; l <= config.num_layers; ++l)
    convs_.emplace_back(config.hidden, config.alpha, config.lambda, config.seed, l);
  p_.resize(convs_.size());
  s_.resize(convs_.size());
  y_.resize(convs_.size());
}

void GcniiModel::drop(MatrixView m, int layer) const {
  if (training_ && config_.dropout > 0.0f)
    kernels::dropout(m, ids_, config_.dropout, config_.seed, epoch_, layer);
}

void GcniiModel::begin(Aggregator& aggregator, std::span<const GlobalId> ids, bool training,
                       std::int64_t epoch) {
  training_ = training;
  epoch_ = epoch;
  ids_.assign(ids.begin(), ids.end());
  ensure_shape(h0_, aggregator.owned_rows(), config_.hidden);
}

const Matrix& GcniiModel::forward(Aggregator& aggregator, ConstMatrixView features,
                                  std::span<const GlobalId> ids, bool training,
                                  std::int64_t epoch) {
  begin(aggregator, ids, training, epoch);
  ensure_shape(dropped_x_, features.rows, features.cols);
  kernels::copy(features, dropped_x_.view());
  drop(dropped_x_.view(), 0);
  dense_input_ = dropped_x_.view();
  sparse_input_ = nullptr;
  input_.forward(dense_input_, h0_.view());
  return run_convs(aggregator);
}

const Matrix& GcniiModel::forward(Aggregator& aggregator, SparseFeatures& features,
                                  std::span<const GlobalId> ids, bool training,
                                  std::int64_t epoch) {
  begin(aggregator, ids, training, epoch);
  if (training_ && config_.dropout > 0.0f)
    features.dropout(ids_, config_.dropout, config_.seed, epoch_, 0);
  else
    features.reset();
  sparse_input_ = &features;
  input_.forward(features.view(), h0_.view());
  return run_convs(aggregator);
}

const Matrix& GcniiModel::run_convs(Aggregator& aggregator) {
  kernels::relu_forward(h0_.view(), h0_.view());
  const std::int64_t rows = h0_.rows();
  const Matrix* h = &h0_;
  for (std::size_t j = 0; j < convs_.size(); ++j) {
    const int layer = static_cast<int>(j) + 1;
    for (Matrix* m : {&p_[j], &s_[j], &y_[j]}) ensure_shape(*m, rows, config_.hidden);
    kernels::copy(h->view(), p_[j].view());
    drop(p_[j].view(), layer);
    aggregator.forward(p_[j].view(), s_[j].view(), layer - 1);
    convs_[j].forward(s_[j].view(), h0_.view(), y_[j].view());
    kernels::relu_forward(y_[j].view(), y_[j].view());
    h = &y_[j];
  }
  ensure_shape(q_, rows, config_.hidden);
  kernels::copy(h->view(), q_.view());
  drop(q_.view(), config_.num_layers + 1);
  ensure_shape(logits_, rows, config_.classes);
  output_.forward(q_.view(), logits_.view());
  forward_done_ = true;
  return logits_;
}

void GcniiModel::backward(Aggregator& aggregator, ConstMatrixView grad_logits) {
  STRATA_CHECK(forward_done_, "GcniiModel::backward before forward");
  const std::int64_t rows = h0_.rows();
  for (Matrix* m : {&grad_h_, &grad_h0_, &grad_z_}) ensure_shape(*m, rows, config_.hidden);
  output_.accumulate(q_.view(), grad_logits);
  output_.input_grad(grad_logits, grad_h_.view());
  drop(grad_h_.view(), config_.num_layers + 1);
  backward_convs(aggregator);
  kernels::axpy(1.0f, grad_h0_.view(), grad_h_.view());  // h0 is also conv 1's input
  kernels::relu_backward(h0_.view(), grad_h_.view(), grad_h_.view());
  if (sparse_input_)
    input_.accumulate_sparse(sparse_input_->transposed_view(), grad_h_.view());
  else
    input_.accumulate(dense_input_, grad_h_.view());
  cast_gradients();
}

// On entry grad_h_ = d loss / d h_L; on return d loss / d h0 through conv 1's input only
// (grad_h0_ holds what the initial residuals add).
void GcniiModel::backward_convs(Aggregator& aggregator) {
  kernels::zero(grad_h0_.view());
  for (std::size_t j = convs_.size(); j-- > 0;) {
    const int layer = static_cast<int>(j) + 1;
    kernels::relu_backward(y_[j].view(), grad_h_.view(), grad_h_.view());
    convs_[j].backward(s_[j].view(), grad_h_.view(), grad_h0_.view(), grad_z_.view());
    aggregator.backward(grad_z_.view(), grad_h_.view(), layer - 1);
    drop(grad_h_.view(), layer);
  }
}

void GcniiModel::cast_gradients() {
  input_.cast_gradients();
  for (GcniiConv& conv : convs_) conv.cast_gradients();
  output_.cast_gradients();
}

ParameterList GcniiModel::parameters() {
  ParameterList list = input_.parameters();
  for (GcniiConv& conv : convs_)
    for (const Parameter& p : conv.parameters()) list.push_back(p);
  for (const Parameter& p : output_.parameters()) list.push_back(p);
  return list;
}

void GcniiModel::zero_grad() {
  input_.zero_grad();
  for (GcniiConv& conv : convs_) conv.zero_grad();
  output_.zero_grad();
}

}  // namespace strata
