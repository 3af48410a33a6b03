// Finite-difference gradient checks for Linear, GcniiConv and GcniiModel; dense and
// sparse input agree; beta follows log(lambda / l + 1).
#include <cmath>

#include "layer_test_util.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/gcnii_model.h"
#include "strata/layers/local_aggregator.h"

namespace strata {
namespace {
using namespace test;

ModelConfig gcnii_config(int layers, float dropout) {
  ModelConfig c{3, 4, 2, layers, dropout, true, 17};
  c.kind = ModelKind::kGcnii;
  c.alpha = 0.2f;
  c.lambda = 1.0f;
  return c;
}

Csr dense_to_csr(const Matrix& m) {
  Csr a;
  a.rows = static_cast<LocalId>(m.rows());
  a.cols = static_cast<LocalId>(m.cols());
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    for (std::int64_t c = 0; c < m.cols(); ++c)
      if (m.view().at(r, c) != 0.0f) {
        a.indices.push_back(static_cast<LocalId>(c));
        a.values.push_back(m.view().at(r, c));
      }
    a.offsets.push_back(static_cast<EdgeOffset>(a.indices.size()));
  }
  return a;
}

TEST_CASE("GcniiConv beta and gradients of W, z and h0", "[layers][gcnii]") {
  CHECK(GcniiConv::beta_of(0.5f, 1) == Approx(std::log(1.5)));
  CHECK(GcniiConv::beta_of(0.5f, 16) == Approx(std::log(1.0 + 0.5 / 16)));
  GcniiConv conv(4, 0.3f, 0.8f, 9, 2);
  Matrix z = random_matrix(5, 4, 1), h0 = random_matrix(5, 4, 2);
  const Matrix r = random_matrix(5, 4, 3);
  Matrix s(5, 4), y(5, 4);
  auto objective = [&] {
    kernels::copy(z.view(), s.view());
    conv.forward(s.view(), h0.view(), y.view());
    return dot(y, r);
  };
  objective();
  Matrix grad_y = r, grad_h0(5, 4), grad_z(5, 4);
  kernels::zero(grad_h0.view());
  conv.zero_grad();
  conv.backward(s.view(), grad_y.view(), grad_h0.view(), grad_z.view());
  conv.cast_gradients();
  const Parameter w = conv.parameters()[0];
  const std::vector<float> dw(w.grad.begin(), w.grad.end());
  check_gradient(w.value, dw, objective);
  check_gradient(z.storage(), grad_z.storage(), objective);
  check_gradient(h0.storage(), grad_h0.storage(), objective);
}

TEST_CASE("Linear gradients, dense and sparse input", "[layers][gcnii]") {
  Linear linear(3, 2, 4, 0);
  Matrix x = random_matrix(5, 3, 6);
  x.view().at(1, 2) = 0.0f;
  const Matrix r = random_matrix(5, 2, 7);
  Matrix y(5, 2), dx(5, 3);
  auto objective = [&] {
    linear.forward(x.view(), y.view());
    return dot(y, r);
  };
  objective();
  linear.zero_grad();
  linear.accumulate(x.view(), r.view());
  linear.input_grad(r.view(), dx.view());
  linear.cast_gradients();
  const ParameterList params = linear.parameters();
  const std::vector<float> dw(params[0].grad.begin(), params[0].grad.end());
  const std::vector<float> db(params[1].grad.begin(), params[1].grad.end());
  check_gradient(x.storage(), dx.storage(), objective);
  check_gradient(params[0].value, dw, objective);
  check_gradient(params[1].value, db, objective);

  const Csr xs = dense_to_csr(x), xt = transpose(xs);
  Linear sparse(3, 2, 4, 0);
  Matrix ys(5, 2);
  linear.forward(x.view(), y.view());
  sparse.forward(xs.view(), ys.view());
  for (std::int64_t i = 0; i < y.size(); ++i) CHECK(ys.data()[i] == Approx(y.data()[i]));
  sparse.accumulate_sparse(xt.view(), r.view());
  sparse.cast_gradients();
  for (std::size_t i = 0; i < dw.size(); ++i)
    CHECK(sparse.parameters()[0].grad[i] == Approx(dw[i]).epsilon(1e-6));
}

TEST_CASE("GcniiModel gradients through every conv and both linear layers", "[layers][gcnii]") {
  for (int layers : {1, 3}) {
    INFO(layers << " convs");
    LocalAggregator agg(hand_graph());
    GcniiModel model(gcnii_config(layers, 0.0f));
    // Nonzero biases keep rows off ReLU kinks.
    const ParameterList input = model.input().parameters();  // keep the list alive
    for (float& b : input[1].value) b = 0.1f;
    const Matrix x = random_matrix(5, 3, 4);
    const Matrix r = random_matrix(5, 2, 5);
    const std::vector<GlobalId> ids{0, 1, 2, 3, 4};
    auto objective = [&] { return dot(model.forward(agg, x.view(), ids, true, 0), r); };
    objective();
    model.zero_grad();
    model.backward(agg, r.view());
    CHECK(agg.backward_calls() == layers);  // conv 1 passes its gradient on to h0 too
    int index = 0;
    for (Parameter& p : model.parameters()) {
      INFO("parameter " << index++);
      const std::vector<float> analytic(p.grad.begin(), p.grad.end());
      check_gradient(p.value, analytic, objective, 1e-3f);
    }
  }
}

TEST_CASE("GcniiModel: sparse input gives the dense logits and gradients", "[layers][gcnii]") {
  LocalAggregator agg(hand_graph());
  Matrix x = random_matrix(5, 3, 8);
  x.view().at(0, 1) = 0.0f;
  x.view().at(3, 0) = 0.0f;
  const Csr xs = dense_to_csr(x);
  SparseFeatures sparse(xs.view());
  const std::vector<GlobalId> ids{0, 1, 2, 3, 4};
  GcniiModel dense_model(gcnii_config(2, 0.5f)), sparse_model(gcnii_config(2, 0.5f));
  const Matrix r = random_matrix(5, 2, 9);
  const Matrix a = dense_model.forward(agg, x.view(), ids, true, 3);
  const Matrix b = sparse_model.forward(agg, sparse, ids, true, 3);
  for (std::int64_t i = 0; i < a.size(); ++i) CHECK(a.data()[i] == Approx(b.data()[i]));
  dense_model.backward(agg, r.view());
  sparse_model.backward(agg, r.view());
  const ParameterList pa = dense_model.parameters(), pb = sparse_model.parameters();
  REQUIRE(pa.size() == pb.size());
  for (std::size_t p = 0; p < pa.size(); ++p)
    for (std::size_t i = 0; i < pa[p].grad.size(); ++i)
      CHECK(pa[p].grad[i] == Approx(pb[p].grad[i]).margin(1e-6));
}

TEST_CASE("make_model builds the named model", "[layers][gcnii]") {
  CHECK(parse_model_kind("gcnii") == ModelKind::kGcnii);
  CHECK_THROWS_WITH(parse_model_kind("gat"), Catch::Contains("--model"));
  const auto model = make_model(gcnii_config(4, 0.0f));
  // W_in, b_in, 4 conv weights, W_out, b_out
  CHECK(model->parameters().size() == 8);
}

}  // namespace
}  // namespace strata

namespace strata {

TEST_CASE("parameter_shapes lists every parameter of the model in order", "[layers]") {
  for (ModelKind kind : {ModelKind::kGcn, ModelKind::kGcnii})
    for (bool bias : {true, false}) {
      ModelConfig c{5, 7, 3, 3, 0.0f, bias, 1};
      c.kind = kind;
      const auto shapes = parameter_shapes(c);
      const ParameterList params = make_model(c)->parameters();
      INFO(model_kind_name(kind) << (bias ? " with bias" : " without bias"));
      REQUIRE(shapes.size() == params.size());
      for (std::size_t i = 0; i < shapes.size(); ++i)
        CHECK(shapes[i].size() == static_cast<std::int64_t>(params[i].value.size()));
      CHECK(shapes.front().name == (kind == ModelKind::kGcn ? "conv1.weight" : "input.weight"));
      CHECK(shapes.front().rows == 5);
      CHECK(shapes.back().cols == 3);
    }
}

}  // namespace strata
