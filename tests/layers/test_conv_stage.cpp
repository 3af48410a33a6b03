// The convolution stage (conv_stage.h) of GCN and GraphSAGE: finite-difference gradient
// checks of every parameter, in both product orders, from dense and sparse features, and
// of a later stage's input rows.
#include "conv_stage.h"
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

ModelConfig gcn(int in, int layers, ModelKind kind = ModelKind::kGcn) {
  ModelConfig c{in, 4, 2, layers, 0.0f, true, 11};
  c.kind = kind;
  return c;
}

void check_parameters(const ModelConfig& model, bool sparse) {
  const Matrix x = random_matrix(5, model.in_features, 4), r = random_matrix(5, 2, 5);
  StageRun run(model, 0, model.num_layers, hand_graph(), &x, sparse);
  run.set_biases(0.05f);
  const auto objective = [&] { return dot(run.forward(true), r); };
  objective();
  const std::vector<float> analytic = run.backward(r);
  check_gradient(run.values(), analytic, objective, 1e-3f);  // small: stay off ReLU kinks
}

TEST_CASE("GCN product order: aggregate first when the input is narrower", "[layers][gcn]") {
  const ModelConfig c = gcn(3, 3);
  CHECK(ConvStage::aggregates_first(c, 0, false));               // 3 -> 4
  CHECK_FALSE(ConvStage::aggregates_first(c, 2, false));         // 4 -> 2
  CHECK(ConvStage::aggregates_first(c, 2, true));                // history: every later layer
  CHECK_FALSE(ConvStage::aggregates_first(gcn(6, 3), 0, true));  // never layer 0 (wide input)
}

TEST_CASE("GCN stage gradients, aggregate-first layer 0, dense and sparse", "[layers][gcn]") {
  for (bool sparse : {false, true}) {
    INFO((sparse ? "sparse" : "dense") << " features");
    check_parameters(gcn(3, 3), sparse);
  }
}

TEST_CASE("GCN stage gradients, transform-first layer 0, dense and sparse", "[layers][gcn]") {
  for (bool sparse : {false, true}) {
    INFO((sparse ? "sparse" : "dense") << " features");
    check_parameters(gcn(6, 3), sparse);
  }
}

TEST_CASE("SAGE stage gradients, both product orders, dense and sparse", "[layers][sage]") {
  for (int in : {3, 6})
    for (bool sparse : {false, true}) {
      INFO(in << " features, " << (sparse ? "sparse" : "dense"));
      check_parameters(gcn(in, 3, ModelKind::kSage), sparse);
    }
}

TEST_CASE("a later SAGE stage passes the gradient of its input rows on, root term included",
          "[layers][sage]") {
  const Matrix r = random_matrix(5, 2, 6);
  StageRun run(gcn(3, 3, ModelKind::kSage), 1, 3, hand_graph());
  run.set_biases(0.05f);
  Matrix in = random_matrix(5, 4, 7);
  check_input_gradient(run, in, r);
}

TEST_CASE("GCN stage without bias", "[layers][gcn]") {
  ModelConfig c = gcn(6, 2);
  c.bias = false;
  CHECK(parameter_shapes(c).size() == 2);
  check_parameters(c, false);
}

TEST_CASE("a later GCN stage passes the gradient of its input rows on", "[layers][gcn]") {
  const ModelConfig c = gcn(3, 3);
  const Matrix r = random_matrix(5, 2, 6);
  StageRun run(c, 1, 3, hand_graph());
  run.set_biases(0.05f);
  Matrix in = random_matrix(5, 4, 7);
  check_input_gradient(run, in, r);
}

}  // namespace
}  // namespace strata
