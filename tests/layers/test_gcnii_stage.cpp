// The GCNII stage (gcnii_stage.h): beta, finite-difference gradients through every conv and
// both linear layers, and a middle stage's [dh | dh0] rows.
#include <cmath>

#include "gcnii_stage.h"
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

ModelConfig gcnii(int layers) {
  ModelConfig c{3, 4, 2, layers, 0.0f, true, 17};
  c.kind = ModelKind::kGcnii;
  c.alpha = 0.2f;
  c.lambda = 1.0f;
  return c;
}

TEST_CASE("GCNII beta follows log(lambda / l + 1)", "[layers][gcnii]") {
  CHECK(GcniiStage::beta_of(0.5f, 1) == Approx(std::log(1.5)));
  CHECK(GcniiStage::beta_of(0.5f, 16) == Approx(std::log(1.0 + 0.5 / 16)));
}

TEST_CASE("GCNII gradients through every conv and both linear layers", "[layers][gcnii]") {
  for (int layers : {1, 3})
    for (bool sparse : {false, true}) {
      INFO(layers << " convs, " << (sparse ? "sparse" : "dense") << " features");
      const Matrix x = random_matrix(5, 3, 4), r = random_matrix(5, 2, 5);
      StageRun run(gcnii(layers), 0, layers, hand_graph(), &x, sparse);
      run.set_biases(0.1f);
      const auto objective = [&] { return dot(run.forward(true), r); };
      objective();
      const std::vector<float> analytic = run.backward(r);
      check_gradient(run.values(), analytic, objective, 1e-3f);
    }
}

TEST_CASE("a middle GCNII stage passes [dh | dh0] of its input rows on", "[layers][gcnii]") {
  StageRun run(gcnii(3), 1, 2, hand_graph());
  Matrix in = random_matrix(5, 8, 7), r = random_matrix(5, 8, 8);
  for (float& v : in.storage()) v = std::abs(v);  // h and h0 are ReLU outputs
  check_input_gradient(run, in, r);
}

}  // namespace
}  // namespace strata
