// Finite-difference gradient checks for GcnLayer (both orders) and GcnModel.
#include "layer_test_util.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/gcn_model.h"
#include "strata/layers/local_aggregator.h"
#include "strata/layers/optimizer.h"

namespace strata {
namespace {
using namespace test;

void check_layer(int in, int out) {
  const Csr a = hand_graph();
  LocalAggregator agg(a);
  GcnLayer layer(in, out, true, 5, 0);
  for (float& b : layer.bias()) b = 0.1f;
  Matrix x = random_matrix(5, in, 1);
  const Matrix r = random_matrix(5, out, 2);
  Matrix y(5, out), dx(5, in);
  auto objective = [&] {
    layer.forward(agg, x.view(), y.view(), 0);
    return dot(y, r);
  };
  objective();
  layer.zero_grad();
  layer.backward(agg, r.view(), dx.view(), 0);
  ParameterList params = layer.parameters();
  const std::vector<float> dw(params[0].grad.begin(), params[0].grad.end());
  const std::vector<float> db(params[1].grad.begin(), params[1].grad.end());
  check_gradient(x.storage(), dx.storage(), objective);
  check_gradient(params[0].value, dw, objective);
  check_gradient(params[1].value, db, objective);
}

TEST_CASE("GcnLayer gradients, aggregate first", "[layers][gcn]") {
  CHECK(GcnLayer::aggregate_first(3, 4));
  CHECK(GcnLayer::exchange_width(3, 4) == 3);
  check_layer(3, 4);
}

TEST_CASE("GcnLayer gradients, transform first", "[layers][gcn]") {
  CHECK_FALSE(GcnLayer::aggregate_first(4, 2));
  CHECK(GcnLayer::exchange_width(4, 2) == 2);
  check_layer(4, 2);
}

TEST_CASE("aggregate-first first layer skips the backward exchange", "[layers][gcn]") {
  LocalAggregator agg(hand_graph());
  GcnLayer layer(2, 6);
  CHECK_FALSE(layer.needs_backward_exchange(false));
  CHECK(GcnLayer(6, 2).needs_backward_exchange(false));
  const Matrix x = random_matrix(5, 2, 3);
  Matrix y(5, 6);
  layer.forward(agg, x.view(), y.view(), 0);
  layer.backward(agg, y.view(), MatrixView{}, 0);
  CHECK(agg.forward_calls() == 1);
  CHECK(agg.backward_calls() == 0);
}

TEST_CASE("GcnModel gradients with ReLU, no dropout", "[layers][model]") {
  LocalAggregator agg(hand_graph());
  ModelConfig config{3, 4, 2, 3, 0.0f, true, 11};
  GcnModel model(config);
  // Nonzero biases: with zero ones a row whose ReLU inputs all die sits exactly on a kink.
  for (GcnLayer& layer : model.layers())
    for (float& b : layer.bias()) b = 0.05f;
  const Matrix x = random_matrix(5, 3, 4);
  const Matrix r = random_matrix(5, 2, 5);
  const std::vector<GlobalId> ids{0, 1, 2, 3, 4};
  auto objective = [&] { return dot(model.forward(agg, x.view(), ids, true, 0), r); };
  objective();
  model.zero_grad();
  model.backward(agg, r.view());
  int index = 0;
  for (Parameter& p : model.parameters()) {
    INFO("parameter " << index++);
    const std::vector<float> analytic(p.grad.begin(), p.grad.end());
    check_gradient(p.value, analytic, objective, 1e-3f);  // small: stay off ReLU kinks
  }
}

TEST_CASE("GcnModel with dropout trains deterministically", "[layers][model]") {
  LocalAggregator agg(hand_graph());
  ModelConfig config{3, 8, 2, 2, 0.5f, true, 11};
  const Matrix x = random_matrix(5, 3, 4);
  const std::vector<GlobalId> ids{0, 1, 2, 3, 4};
  const std::vector<std::int32_t> labels{0, 1, 0, 1, 1};
  const std::vector<std::uint8_t> mask{1, 1, 1, 1, 1};
  std::vector<double> losses[2];
  for (auto& run : losses) {
    GcnModel model(config);
    Adam adam(model.parameters(), AdamConfig{0.05f, 0.9f, 0.999f, 1e-8f, 5e-4f});
    Matrix grad(5, 2);
    for (int epoch = 0; epoch < 30; ++epoch) {
      model.zero_grad();
      const Matrix& logits = model.forward(agg, x.view(), ids, true, epoch);
      run.push_back(kernels::masked_log_softmax_nll(logits.view(), labels, mask, 5.0, grad.view()));
      model.backward(agg, grad.view());
      adam.step();
    }
  }
  CHECK(losses[0] == losses[1]);
  CHECK(losses[0].back() < losses[0].front());
}

TEST_CASE("Adam optimizer applies decay only where asked", "[layers][adam]") {
  std::vector<float> w{1.0f}, gw{0.0f}, b{1.0f}, gb{0.0f};
  Adam adam({{w, gw, {}, true}, {b, gb, {}, false}}, AdamConfig{0.1f, 0.9f, 0.999f, 1e-8f, 0.5f});
  adam.step();
  CHECK(w[0] == Approx(0.9f));  // g = 0.5 · 1: a step of lr against the sign
  CHECK(b[0] == 1.0f);          // g = 0: m = 0, no update
  CHECK(adam.steps() == 1);
}

}  // namespace
}  // namespace strata
