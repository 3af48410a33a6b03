// What ConvStage's layers have beside Â P W + b (conv_stage.h): where each layer's tensors
// are, GraphSAGE's root term's backward, GIN's eps term on a vertex's own row and GIN's MLP
// after the conv.
#include "conv_stage.h"

namespace strata {

std::size_t ConvStage::tensors_per_layer(const ModelConfig& model, ConvForm form) {
  const std::size_t bias = model.bias ? 1 : 0;
  const std::size_t mlp = form.mlp ? 1 + bias + (model.learn_eps ? 1 : 0) : 0;
  return 1 + bias + (form.root_weight ? 1 : 0) + mlp;
}

ConvStage::Layer ConvStage::layer_tensors(std::size_t first_tensor) const {
  Layer layer;
  std::size_t t = first_tensor;
  layer.weight = t++;
  if (model_.bias) ++t;
  if (form_.root_weight) layer.root = t++;
  if (form_.mlp) {
    layer.mlp = t++;
    if (model_.bias) ++t;
    if (model_.learn_eps) layer.eps = t++;
  }
  return layer;
}

MatrixView ConvStage::conv_rows(Layer& layer, const Block& b) {
  return layer.mlp ? rows(layer.h, b) : output_of(layer, b);
}

// (A + I) P + eps P: PyG's (1 + eps) x_i + sum_j x_j. P's rows s are its own rows s.
void ConvStage::aggregate_into(Layer& layer, const Block& s, ConstMatrixView columns,
                               MatrixView out) {
  graph_.aggregate(s, columns, out);
  if (layer.eps) backend_.axpy(layer.eps_value, columns.rows_range(s.begin, s.end), out);
}

void ConvStage::mlp_forward(Layer& layer, const Block& b) {
  const MatrixView y = output_of(layer, b);
  backend_.gemm(false, false, 1.0f, rows(layer.h, b), parameters_.value(*layer.mlp), 0.0f, y);
  if (model_.bias) backend_.add_bias_rows(y, parameters_.value(*layer.mlp + 1).data);
  if (!last_model_layer(layer)) backend_.relu_forward(y, y);
}

MatrixView ConvStage::activation_backward(Layer& layer, const Block& b, MatrixView grad_y,
                                          MatrixView grad_h) {
  if (!last_model_layer(layer)) relu_backward(layer, b, grad_y);
  MatrixView grad = grad_y;
  if (layer.mlp) {
    const std::size_t w2 = *layer.mlp;
    if (model_.bias) backend_.column_sums_accumulate(grad_y, parameters_.sum(w2 + 1));
    backend_.gemm_tn_accumulate(1.0f, rows(layer.h, b), grad_y, parameters_.sum(w2));
    backend_.gemm(false, true, 1.0f, grad_y, parameters_.value(w2), 0.0f, grad_h);
    backend_.relu_backward(rows(layer.h, b), grad_h, grad_h);
    grad = grad_h;
  }
  if (model_.bias) backend_.column_sums_accumulate(grad, parameters_.sum(layer.weight + 1));
  return grad;
}

// <sent, P[b]> as a (rows * cols) x 1 by (rows * cols) x 1 product: both are whole rows of
// buffers whose stride is their width (P[b] a slice at a time where it is stored).
void ConvStage::eps_gradient(Layer& layer, const Block& b, ConstMatrixView sent) {
  if (!layer.eps || b.size() == 0) return;
  const ConstMatrixView p_rows = layer.p.view().rows_range(b.begin, b.end);
  for_input_slices(layer, b, p_rows, [&](const Block& s, ConstMatrixView p) {
    const ConstMatrixView d = piece_rows(sent, b, s);
    STRATA_CHECK(d.stride == d.cols && p.stride == p.cols && d.cols == p.cols,
                 "eps gradient: rows are not contiguous");
    const std::int64_t values = d.rows * d.cols;
    backend_.gemm_tn_accumulate(1.0f, {d.data, values, 1, 1}, {p.data, values, 1, 1},
                                parameters_.sum(*layer.eps));
  });
}

// The root term X W_root: dW_root += Xᵀ dY, dX += dY W_rootᵀ (X: b's dropped input rows).
void ConvStage::root_backward(Layer& layer, const Block& b, ConstMatrixView grad_y,
                              MatrixView grad_x) {
  for_input_slices(layer, b, input_of(layer, b), [&](const Block& s, ConstMatrixView x) {
    backend_.gemm_tn_accumulate(1.0f, x, piece_rows(grad_y, b, s), parameters_.sum(*layer.root));
  });
  backend_.gemm(false, true, 1.0f, grad_y, parameters_.value(*layer.root), 1.0f, grad_x);
}

void ConvStage::read_eps() {
  for (Layer& layer : layers_)
    if (layer.eps)
      backend_.download(&layer.eps_value, parameters_.value(*layer.eps).data, sizeof(float));
}

}  // namespace strata
