// GAT's layers (gat_stage.h): the forward against the definition computed naively,
// its tensors, and finite-difference gradients of every parameter (heads concatenated and
// averaged, dropout of the input and of the attention weights, dense and sparse features,
// chunked) and of a later stage's input rows.
#include <cmath>

#include "gat_stage.h"
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

ModelConfig gat(int in, int layers, int heads, int output_heads, float dropout = 0.0f) {
  ModelConfig c{in, 3, 2, layers, dropout, true, 11};
  c.kind = ModelKind::kGat;
  c.heads = heads;
  c.output_heads = output_heads;
  c.attention_dropout = dropout;
  return c;
}

// One GAT layer by its definition over the hand graph's structure (its values unread):
// per head k, alpha_ij = softmax_j LeakyReLU(<H_i, a_dst_k> + <H_j, a_src_k>), heads
// concatenated or averaged, + b, ELU where asked. p: W, a_src, a_dst, b.
Matrix naive_gat_layer(const Csr& a, const Matrix& x, const std::vector<float>* p, int heads,
                       int width, bool concat, bool elu) {
  const std::int64_t hw = std::int64_t{heads} * width;
  Matrix h(x.rows(), hw);
  for (std::int64_t i = 0; i < x.rows(); ++i)
    for (std::int64_t j = 0; j < hw; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < x.cols(); ++k) s += double{x.at(i, k)} * p[0][k * hw + j];
      h.at(i, j) = static_cast<float>(s);
    }
  const auto score = [&](LocalId row, int k, const std::vector<float>& att) {
    double s = 0;
    for (int f = 0; f < width; ++f) s += double{h.at(row, k * width + f)} * att[k * width + f];
    return s;
  };
  Matrix y(x.rows(), concat ? hw : width);
  for (LocalId i = 0; i < a.rows; ++i)
    for (int k = 0; k < heads; ++k) {
      std::vector<double> e;
      double sum = 0;
      for (EdgeOffset t = a.offsets[i]; t < a.offsets[i + 1]; ++t) {
        const double z = score(i, k, p[2]) + score(a.indices[t], k, p[1]);
        e.push_back(std::exp(z > 0 ? z : 0.2 * z));
        sum += e.back();
      }
      for (EdgeOffset t = a.offsets[i]; t < a.offsets[i + 1]; ++t)
        for (int f = 0; f < width; ++f) {
          const double v = e[t - a.offsets[i]] / sum * h.at(a.indices[t], k * width + f);
          y.at(i, concat ? k * width + f : f) += static_cast<float>(concat ? v : v / heads);
        }
    }
  for (std::int64_t i = 0; i < y.rows(); ++i)
    for (std::int64_t j = 0; j < y.cols(); ++j) {
      const float v = y.at(i, j) + p[3][j];
      y.at(i, j) = elu && v <= 0 ? std::expm1(v) : v;
    }
  return y;
}

TEST_CASE("a GAT model computes its layers' definition: heads concatenated, then averaged",
          "[layers][gat]") {
  const ModelConfig c = gat(4, 2, 2, 3);
  const Matrix x = random_matrix(5, 4, 4);
  StageRun run(c, 0, 2, hand_graph(), &x);
  run.set_biases(0.05f);
  const ConstMatrixView y = run.forward(false);
  const std::vector<std::vector<float>> p = run.parameters().values_on_host();
  const Matrix hidden = naive_gat_layer(hand_graph(), x, &p[0], 2, 3, true, true);
  const Matrix expected = naive_gat_layer(hand_graph(), hidden, &p[4], 3, 2, false, false);
  for (std::int64_t i = 0; i < y.rows; ++i)
    for (std::int64_t j = 0; j < y.cols; ++j)
      CHECK(y.at(i, j) == Approx(expected.at(i, j)).margin(1e-5));
}

TEST_CASE("GAT tensors: W, a_src, a_dst and b per layer, hidden rows heads x hidden wide",
          "[layers][gat]") {
  const ModelConfig c = gat(4, 2, 2, 3);
  CHECK(c.width(1) == 6);
  const std::vector<TensorShape> shapes = parameter_shapes(c);
  REQUIRE(shapes.size() == 8);
  CHECK(shapes[0].name == "conv1.weight");
  CHECK((shapes[0].rows == 4 && shapes[0].cols == 6));
  CHECK(shapes[1].name == "conv1.att_src");
  CHECK((shapes[1].rows == 2 && shapes[1].cols == 3));
  CHECK(shapes[2].name == "conv1.att_dst");
  CHECK(shapes[1].glorot_key != shapes[2].glorot_key);
  CHECK((shapes[3].name == "conv1.bias" && shapes[3].cols == 6));
  CHECK((shapes[4].rows == 6 && shapes[4].cols == 6));  // conv2.weight: 3 heads of 2 classes
  CHECK((shapes[5].rows == 3 && shapes[5].cols == 2));
  CHECK(shapes[7].cols == 2);  // an averaged layer's bias: one head wide
}

void check_gat_parameters(const ModelConfig& model, bool sparse, bool chunked) {
  const Matrix x = random_matrix(5, model.in_features, 4), r = random_matrix(5, 2, 5);
  StageRun run(model, 0, model.num_layers, hand_graph(), &x, sparse, chunked);
  run.set_biases(0.05f);
  const auto objective = [&] { return dot(run.forward(true, 2), r); };
  objective();
  const std::vector<float> analytic = run.backward(r);
  check_gradient(run.values(), analytic, objective, 1e-3f);
}

TEST_CASE("GAT stage gradients: heads concatenated and averaged, dropout, sparse, chunked",
          "[layers][gat]") {
  for (int output_heads : {1, 2})
    for (float dropout : {0.0f, 0.3f})
      for (bool sparse : {false, true})
        for (bool chunked : {false, true}) {
          INFO(output_heads << " output heads, dropout " << dropout << (sparse ? ", sparse" : "")
                            << (chunked ? ", chunked" : ""));
          check_gat_parameters(gat(4, 3, 2, output_heads, dropout), sparse, chunked);
        }
}

TEST_CASE("a later GAT stage passes the gradient of its input rows on", "[layers][gat]") {
  const Matrix r = random_matrix(5, 2, 6);
  StageRun run(gat(4, 3, 2, 2, 0.3f), 1, 3, hand_graph());
  run.set_biases(0.05f);
  Matrix in = random_matrix(5, 6, 7);
  check_input_gradient(run, in, r);
}

}  // namespace
}  // namespace strata
