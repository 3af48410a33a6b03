// GIN's layers (conv_stage.h with an MLP): the forward against a naive reference, and
// finite-difference gradients of every parameter (eps included) in both product orders,
// dense and sparse, one block and chunked, and of a later stage's input rows.
#include "conv_stage.h"
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

ModelConfig gin(int in, int layers, bool learn_eps) {
  ModelConfig c{in, 4, 2, layers, 0.0f, true, 11};
  c.kind = ModelKind::kGin;
  c.learn_eps = learn_eps;
  return c;
}

// Sets every eps to `value` (0 would hide a missing eps term from the forward).
void set_eps(StageRun& run, float value) {
  std::vector<std::vector<float>> v = run.parameters().values_on_host();
  for (std::size_t t = 0; t < v.size(); ++t)
    if (run.parameters().shapes()[t].name.ends_with(".eps")) v[t] = {value};
  run.parameters().set_values(v);
}

Matrix product(const Matrix& a, const std::vector<float>& w, std::int64_t cols) {
  Matrix out(a.rows(), cols);
  for (std::int64_t i = 0; i < a.rows(); ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < a.cols(); ++k) s += double{a.at(i, k)} * w[k * cols + j];
      out.at(i, j) = static_cast<float>(s);
    }
  return out;
}

void add_bias_relu(Matrix& m, const std::vector<float>& bias, bool relu) {
  for (std::int64_t i = 0; i < m.rows(); ++i)
    for (std::int64_t j = 0; j < m.cols(); ++j) {
      const float v = m.at(i, j) + bias[j];
      m.at(i, j) = relu ? std::max(v, 0.0f) : v;
    }
}

// One GIN layer by its definition: MLP(Â X + eps X), MLP = Linear, ReLU, Linear.
Matrix naive_gin_layer(const Csr& a, const Matrix& x, const std::vector<std::vector<float>>& p,
                       int mid, int out) {
  Matrix z(x.rows(), x.cols());
  for (LocalId r = 0; r < a.rows; ++r)
    for (std::int64_t c = 0; c < x.cols(); ++c) {
      double s = double{p[4][0]} * x.at(r, c);
      for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e)
        s += double{a.values[e]} * x.at(a.indices[e], c);
      z.at(r, c) = static_cast<float>(s);
    }
  Matrix h = product(z, p[0], mid);
  add_bias_relu(h, p[1], true);
  Matrix y = product(h, p[2], out);
  add_bias_relu(y, p[3], false);
  return y;
}

TEST_CASE("a GIN layer computes MLP(Â X + eps X), in both product orders", "[layers][gin]") {
  for (int in : {3, 6}) {  // 3 <= 4 hidden: aggregate first; 6: transform first
    INFO(in << " features");
    const ModelConfig c = gin(in, 1, true);
    const Matrix x = random_matrix(5, in, 4);
    StageRun run(c, 0, 1, hand_graph(), &x);
    run.set_biases(0.05f);
    set_eps(run, 0.3f);
    CHECK(ConvStage::aggregates_first(c, 0, false) == (in == 3));
    const ConstMatrixView y = run.forward(false);
    const Matrix expected =
        naive_gin_layer(hand_graph(), x, run.parameters().values_on_host(), c.hidden, c.classes);
    for (std::int64_t i = 0; i < y.rows; ++i)
      for (std::int64_t j = 0; j < y.cols; ++j)
        CHECK(y.at(i, j) == Approx(expected.at(i, j)).margin(1e-5));
  }
}

TEST_CASE("GIN tensors: W1, b1, W2, b2 and a learnt eps per layer", "[layers][gin]") {
  const std::vector<TensorShape> fixed = parameter_shapes(gin(3, 2, false));
  const std::vector<TensorShape> learnt = parameter_shapes(gin(3, 2, true));
  CHECK(fixed.size() == 8);
  REQUIRE(learnt.size() == 10);
  CHECK(learnt[0].name == "conv1.weight");
  CHECK((learnt[0].rows == 3 && learnt[0].cols == 4));
  CHECK(learnt[2].name == "conv1.mlp.weight");
  CHECK(learnt[4].name == "conv1.eps");
  CHECK(learnt[4].size() == 1);
  CHECK(learnt[4].glorot_key == TensorShape::kZeros);   // eps starts at 0, as PyG's
  CHECK((learnt[7].rows == 4 && learnt[7].cols == 2));  // conv2.mlp.weight: hidden -> classes
}

void check_gin_parameters(const ModelConfig& model, bool sparse, bool chunked) {
  const Matrix x = random_matrix(5, model.in_features, 4), r = random_matrix(5, 2, 5);
  StageRun run(model, 0, model.num_layers, hand_graph(), &x, sparse, chunked);
  run.set_biases(0.05f);
  set_eps(run, 0.3f);
  const auto objective = [&] { return dot(run.forward(true), r); };
  objective();
  const std::vector<float> analytic = run.backward(r);
  check_gradient(run.values(), analytic, objective, 1e-3f);
}

TEST_CASE("GIN stage gradients: both orders, eps fixed and learnt, dense and sparse, chunked",
          "[layers][gin]") {
  for (int in : {3, 6})
    for (bool learn_eps : {false, true})
      for (bool sparse : {false, true})
        for (bool chunked : {false, true}) {
          INFO(in << " features, eps " << (learn_eps ? "learnt" : "0") << ", "
                  << (sparse ? "sparse" : "dense") << (chunked ? ", chunked" : ""));
          check_gin_parameters(gin(in, 3, learn_eps), sparse, chunked);
        }
}

TEST_CASE("a later GIN stage passes the gradient of its input rows on, eps term included",
          "[layers][gin]") {
  const Matrix r = random_matrix(5, 2, 6);
  StageRun run(gin(3, 3, true), 1, 3, hand_graph());
  run.set_biases(0.05f);
  set_eps(run, -0.2f);
  Matrix in = random_matrix(5, 4, 7);
  check_input_gradient(run, in, r);
}

}  // namespace
}  // namespace strata
