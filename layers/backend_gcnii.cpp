#include "strata/layers/backend_gcnii.h"

#include "strata/layers/gcnii_conv.h"

namespace strata {

void BackendLinear::forward(const kernels::Backend& b, const FlatParameters& p, ConstMatrixView x,
                            MatrixView y) const {
  b.gemm(false, false, 1.0f, x, p.value(tensor), 0.0f, y);
  b.add_bias_rows(y, p.value(tensor + 1).data);
}

void BackendLinear::forward(const kernels::Backend& b, const FlatParameters& p, BackendFeatures& x,
                            MatrixView y) const {
  x.multiply(p.value(tensor), y);
  b.add_bias_rows(y, p.value(tensor + 1).data);
}

void BackendLinear::accumulate(const kernels::Backend& b, FlatParameters& p, BackendFeatures& x,
                               ConstMatrixView grad_y) const {
  x.accumulate_transposed(grad_y, p.grad(tensor));
  b.column_sums(grad_y, p.grad(tensor + 1).data, true);
}

void BackendLinear::accumulate(const kernels::Backend& b, FlatParameters& p, ConstMatrixView x,
                               ConstMatrixView grad_y) const {
  b.gemm(true, false, 1.0f, x, grad_y, 1.0f, p.grad(tensor));
  b.column_sums(grad_y, p.grad(tensor + 1).data, true);
}

void BackendLinear::input_grad(const kernels::Backend& b, const FlatParameters& p,
                               ConstMatrixView grad_y, MatrixView grad_x) const {
  b.gemm(false, true, 1.0f, grad_y, p.value(tensor), 0.0f, grad_x);
}

BackendGcniiConv::BackendGcniiConv(const ModelConfig& config, int layer, std::size_t t)
    : tensor(t), alpha(config.alpha), beta(GcniiConv::beta_of(config.lambda, layer)) {}

void BackendGcniiConv::forward(const kernels::Backend& b, const FlatParameters& p,
                               MatrixView z_to_s, ConstMatrixView h0, MatrixView y) const {
  b.scale(z_to_s, 1.0f - alpha);
  b.axpy(alpha, h0, z_to_s);
  b.gemm(false, false, beta, z_to_s, p.value(tensor), 0.0f, y);
  b.axpy(1.0f - beta, z_to_s, y);
}

void BackendGcniiConv::backward(const kernels::Backend& b, FlatParameters& p, ConstMatrixView s,
                                ConstMatrixView grad_y, MatrixView grad_h0,
                                MatrixView grad_z) const {
  b.gemm(false, true, beta, grad_y, p.value(tensor), 0.0f, grad_z);
  b.axpy(1.0f - beta, grad_y, grad_z);  // grad_z holds ds
  b.axpy(alpha, grad_z, grad_h0);
  b.scale(grad_z, 1.0f - alpha);
  b.gemm(true, false, beta, s, grad_y, 1.0f, p.grad(tensor));
}

// Tensors: input W, b (0, 1), conv l's W (1 + l), output W, b (L + 2, L + 3).
BackendGcniiModel::BackendGcniiModel(const ModelConfig& config, const kernels::Backend& backend)
    : BackendModel(config, backend),
      input_{0},
      output_{static_cast<std::size_t>(config.num_layers) + 2} {
  STRATA_CHECK(config.kind == ModelKind::kGcnii && config.num_layers >= 1,
               "BackendGcniiModel: a gcnii model with layers >= 1");
  for (int l = 1; l <= config.num_layers; ++l)
    convs_.emplace_back(config, l, static_cast<std::size_t>(l) + 1);
  const auto convs = static_cast<std::size_t>(config.num_layers);
  for (auto* v : {&p_, &s_, &y_}) v->resize(convs);
}

const kernels::Tensor& BackendGcniiModel::forward(Aggregator& aggregator, BackendFeatures& features,
                                                  const GlobalId* row_ids, bool training,
                                                  std::int64_t epoch) {
  begin(aggregator, features, row_ids, training, epoch);
  MatrixView h0 = sized(h0_, features.rows(), config_.hidden).view();
  input_.forward(backend_, parameters_, features, h0);
  backend_.relu_forward(h0, h0);
  run_convs(aggregator);
  forward_done_ = true;
  return logits_;
}

void BackendGcniiModel::run_convs(Aggregator& aggregator) {
  const std::int64_t rows = h0_.rows(), h = config_.hidden;
  ConstMatrixView in = h0_.view();
  for (std::size_t j = 0; j < convs_.size(); ++j) {
    const int layer = static_cast<int>(j) + 1;
    const MatrixView p = sized(p_[j], rows, h).view(), s = sized(s_[j], rows, h).view(),
                     y = sized(y_[j], rows, h).view();
    backend_.copy(in, p);
    drop(p, layer);
    aggregator.forward(p, s, layer - 1);
    convs_[j].forward(backend_, parameters_, s, h0_.view(), y);
    backend_.relu_forward(y, y);
    in = y;
  }
  const MatrixView q = sized(q_, rows, h).view();
  backend_.copy(in, q);
  drop(q, config_.num_layers + 1);
  output_.forward(backend_, parameters_, q, sized(logits_, rows, config_.classes).view());
}

void BackendGcniiModel::backward(Aggregator& aggregator, ConstMatrixView grad_logits) {
  STRATA_CHECK(forward_done_, "BackendGcniiModel::backward before forward");
  const std::int64_t rows = h0_.rows(), h = config_.hidden;
  for (kernels::Tensor* t : {&grad_h_, &grad_h0_, &grad_z_}) sized(*t, rows, h);
  output_.accumulate(backend_, parameters_, q_.view(), grad_logits);
  output_.input_grad(backend_, parameters_, grad_logits, grad_h_.view());
  drop(grad_h_.view(), config_.num_layers + 1);
  backward_convs(aggregator);
  backend_.axpy(1.0f, grad_h0_.view(), grad_h_.view());  // h0 is also conv 1's input
  backend_.relu_backward(h0_.view(), grad_h_.view(), grad_h_.view());
  input_.accumulate(backend_, parameters_, *features_, grad_h_.view());
}

// On entry grad_h_ = d loss / d h_L; on return d loss / d h0 through conv 1's input only
// (grad_h0_ holds what the initial residuals add).
void BackendGcniiModel::backward_convs(Aggregator& aggregator) {
  backend_.zero(grad_h0_.data(), static_cast<std::size_t>(grad_h0_.size()) * sizeof(float));
  for (std::size_t j = convs_.size(); j-- > 0;) {
    const int layer = static_cast<int>(j) + 1;
    backend_.relu_backward(y_[j].view(), grad_h_.view(), grad_h_.view());
    convs_[j].backward(backend_, parameters_, s_[j].view(), grad_h_.view(), grad_h0_.view(),
                       grad_z_.view());
    aggregator.backward(grad_z_.view(), grad_h_.view(), layer - 1);
    drop(grad_h_.view(), layer);
  }
}

}  // namespace strata
