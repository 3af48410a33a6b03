// NaN and inf in a training step: every rank stops with the same message naming the
// epoch, the rank and the value, or every rank skips the step and the weights stay put.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "graph_mode_checks.h"
#include "strata/comm/agreed.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/training/modes.h"
#include "strata/training/numeric_guard.h"

using namespace strata;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Three ranks; rank `bad` breaks its step with `breaks`. Returns each rank's outcome:
// "finite", "skipped" or the error message.
std::vector<std::string> check_step(
    OnNan on_nan, int bad, const std::function<void(StepValues&, std::vector<float>&)>& breaks) {
  std::vector<std::string> outcome(3);
  run_in_process(3, [&](Communicator& comm) {
    StepValues step{true, 0.5, 0, {1.0f, 2.0f, 3.0f}, {3}, {"conv2.weight"}};
    if (comm.rank() == bad) breaks(step, step.gradients);
    try {
      outcome[comm.rank()] = step_is_finite(comm, on_nan, 4, step) ? "finite" : "skipped";
    } catch (const AgreedError& e) {
      outcome[comm.rank()] = e.what();
    }
  });
  return outcome;
}

}  // namespace

TEST_CASE("a non-finite value on one rank stops every rank with one message naming it") {
  const auto nan_grad = [](StepValues&, std::vector<float>& grad) { grad[1] = kNan; };
  for (const std::string& got : check_step(OnNan::kStop, 1, nan_grad))
    CHECK_THAT(got, Catch::StartsWith("epoch 4, rank 1: the gradient of conv2.weight is not "
                                      "finite; training stopped"));
  const auto inf_loss = [](StepValues& s, std::vector<float>&) { s.loss = INFINITY; };
  for (const std::string& got : check_step(OnNan::kStop, 2, inf_loss))
    CHECK_THAT(got, Catch::StartsWith("epoch 4, rank 2: the loss is inf"));
  const auto bad_output = [](StepValues& s, std::vector<float>&) { s.nonfinite_output_layer = 3; };
  for (const std::string& got : check_step(OnNan::kStop, 0, bad_output))
    CHECK_THAT(got, Catch::StartsWith("epoch 4, rank 0: the output of layer 3 is not finite"));
  for (const std::string& got : check_step(OnNan::kSkipStep, 1, nan_grad)) CHECK(got == "skipped");
  for (const std::string& got : check_step(OnNan::kStop, -1, nan_grad)) CHECK(got == "finite");
  CHECK_THROWS_WITH(parse_on_nan("ignore"), "--on-nan must be stop or skip-step, got 'ignore'");
}

TEST_CASE("training into overflow stops, or with skip-step keeps the last finite weights") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  config.lr = 1e38f;  // the first step makes weights of 1e38: the next forward overflows
  config.epochs = 4;
  CHECK_THROWS_WITH(train_one_process(d, config, nullptr),
                    Catch::StartsWith("epoch 1, the output of layer 2 is not finite"));
  TrainConfig one = config;
  one.epochs = 1;
  const TrainResult after_first = train_one_process(d, one, nullptr);
  config.on_nan = OnNan::kSkipStep;
  const auto parts = partition_graph(d.adjacency, {.method = PartitionMethod::kMetis, .parts = 2});
  PipelineOptions chunked;
  chunked.chunks = 2;
  std::vector<TrainResult> results(4);
  results[0] = train_one_process(d, config, nullptr);
  run_in_process(2, [&](Communicator& comm) {
    results[1 + comm.rank()] = testing::train_rank(comm, d, parts, config);
  });
  run_in_process(2, [&](Communicator& comm) {
    TrainResult r = train_pipeline(comm, d, config, chunked, nullptr);
    if (comm.rank() == 0) results[3] = std::move(r);
  });
  for (const TrainResult& r : results) {
    REQUIRE(r.epochs.size() == 4);
    CHECK_FALSE(r.epochs[0].step_skipped);
    for (int e = 1; e < 4; ++e) CHECK(r.epochs[e].step_skipped);
  }
  REQUIRE(!after_first.weights.empty());
  CHECK(results[0].weights == after_first.weights);  // skipped steps change nothing
}
