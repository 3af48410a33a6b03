#include "strata/plan/layer_work.h"

namespace strata {
namespace {

// Elementwise passes over a layer's output rows besides dropout, counted in ConvStage and
// GcniiStage: forward bias, activation and (gcnii) the residual mix; backward their
// gradients, the gradient accumulator's zeroing and sum; evaluation likewise.
constexpr double kForwardPasses = 4, kBackwardPasses = 6, kEvalPasses = 3;

Work sparse(double v) {
  return {v, 0, 0, 0, 0, 0, 0};
}
Work features(double v) {
  return {0, v, 0, 0, 0, 0, 0};
}
Work features_grad(double v) {
  return {0, 0, v, 0, 0, 0, 0};
}
Work dense(double v) {
  return {0, 0, 0, v, 0, 0, 0};
}
Work weight_grad(double v) {
  return {0, 0, 0, 0, v, 0, 0};
}
Work stream(double v) {
  return {0, 0, 0, 0, 0, v, 0};
}
Work dropout(double v) {
  return {0, 0, 0, 0, 0, 0, v};
}

// The input product with the features, and dropout on them: sparse features multiply as
// a sparse product and mask their stored values, dense ones as a GEMM.
struct Input {
  Work forward, backward, eval;
};
Input input_product(const ModelConfig& m, const RowWork& r, int out, double weights) {
  const double dense_values = r.rows * m.in_features;
  const bool is_sparse = r.feature_nonzeros < dense_values;
  const double values = is_sparse ? r.feature_nonzeros : dense_values;
  const Work product = (is_sparse ? features(values * out) : dense(values * out)).scaled(weights);
  const Work grad = is_sparse ? features_grad(values * out) : weight_grad(values * out);
  Input in{product, grad.scaled(weights), product};
  in.forward += dropout(values);
  return in;
}

// GIN's MLP after its conv (width hidden): H W2 forward, dW2 and dH backward, and the
// hidden ReLU's passes.
void add_mlp(const ModelConfig& m, int out, const RowWork& r, LayerWork& w) {
  const double product = r.rows * m.hidden * out;
  const Work passes = stream(r.rows * m.hidden);
  w.forward += dense(product), w.forward += passes.scaled(2);
  w.eval += dense(product), w.eval += passes.scaled(2);
  w.backward += dense(product), w.backward += weight_grad(product);
  w.backward += passes.scaled(2);
}

LayerWork conv_layer(const ModelConfig& m, const ModelShape& s, int l, const RowWork& r) {
  const bool gin = m.kind == ModelKind::kGin;
  const int in = s.widths[l], out = gin ? m.hidden : s.widths[l + 1];
  const double weights = m.kind == ModelKind::kSage ? 2 : 1;
  const Work aggregate = sparse(r.entries * s.exchange_widths[l]);
  const Work passes = stream(r.rows * out);
  LayerWork w;
  if (l == 0) {
    const Input x = input_product(m, r, out, weights);
    w = {x.forward, x.backward, x.eval};
  } else {
    const double product = r.rows * in * out * weights;
    w.forward = dense(product), w.forward += dropout(r.rows * in);
    w.eval = dense(product);
    w.backward = weight_grad(product), w.backward += dense(product);
    w.backward += dropout(r.rows * in), w.backward += aggregate;
  }
  w.forward += aggregate, w.forward += passes.scaled(kForwardPasses);
  w.eval += aggregate, w.eval += passes.scaled(kEvalPasses);
  w.backward += passes.scaled(kBackwardPasses);
  if (gin) add_mlp(m, s.widths[l + 1], r, w);
  return w;
}

LayerWork gcnii_layer(const ModelConfig& m, const ModelShape& s, int l, const RowWork& r) {
  const double h = m.hidden, values = r.rows * h;
  const Work aggregate = sparse(r.entries * h), passes = stream(values);
  LayerWork w;
  w.forward = aggregate, w.forward += dense(values * h), w.forward += dropout(values);
  w.forward += passes.scaled(kForwardPasses);
  w.eval = aggregate, w.eval += dense(values * h), w.eval += passes.scaled(kEvalPasses);
  w.backward = aggregate, w.backward += dense(values * h), w.backward += weight_grad(values * h);
  w.backward += dropout(values), w.backward += passes.scaled(kBackwardPasses);
  if (l == 0) {
    const Input x = input_product(m, r, m.hidden, 1);
    w.forward += x.forward, w.eval += x.eval, w.backward += x.backward;
  }
  if (l + 1 == s.layers()) {
    const double product = values * m.classes;
    w.forward += dense(product), w.eval += dense(product);
    w.backward += dense(product), w.backward += weight_grad(product);
  }
  return w;
}

}  // namespace

LayerWork layer_work(const ModelConfig& model, const ModelShape& shape, int l, const RowWork& r) {
  return model.kind == ModelKind::kGcnii ? gcnii_layer(model, shape, l, r)
                                         : conv_layer(model, shape, l, r);
}

Work optimizer_work(double parameters) {
  return stream(parameters * 8);
}

}  // namespace strata
