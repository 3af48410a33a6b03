// Trained weights come out of every mode identically, and go back in as initial weights.
#include <catch2/catch.hpp>
#include <cmath>

#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/core/sections.h"
#include "strata/store/weights_file.h"
#include "strata/training/modes.h"
#include "strata/training/training_common.h"

using namespace strata;

namespace {

// The largest difference between two sets of weights, which must both hold every tensor:
// an empty set would compare equal to anything.
double max_difference(const Weights& a, const Weights& b) {
  REQUIRE(!a.empty());
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t t = 0; t < a.size(); ++t) {
    REQUIRE(!a[t].empty());
    REQUIRE(a[t].size() == b[t].size());
    for (std::size_t i = 0; i < a[t].size(); ++i)
      worst = std::max(worst, static_cast<double>(std::abs(a[t][i] - b[t][i])));
  }
  return worst;
}

std::vector<TrainResult> chunked_pipeline(int ranks, const Dataset& d, const TrainConfig& config,
                                          const PipelineOptions& options) {
  std::vector<TrainResult> results(static_cast<std::size_t>(ranks));
  run_in_process(ranks, [&](Communicator& comm) {
    results[comm.rank()] = train_pipeline(comm, d, config, options, nullptr);
  });
  return results;
}

std::vector<TrainResult> run_mode(const std::string& mode, int ranks, const Dataset& d,
                                  const TrainConfig& config) {
  std::vector<TrainResult> results(static_cast<std::size_t>(ranks));
  const auto parts =
      partition_graph(d.adjacency, {.method = PartitionMethod::kMetis, .parts = ranks});
  PipelineOptions one_chunk;
  one_chunk.chunks = 1;
  run_in_process(ranks, [&](Communicator& comm) {
    results[comm.rank()] = mode == "graph" ? testing::train_rank(comm, d, parts, config)
                                           : train_pipeline(comm, d, config, one_chunk, nullptr);
  });
  return results;
}

}  // namespace

TEST_CASE("every exact mode returns the one-process weights on every rank") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (ModelKind model : testing::kModels) {
    TrainConfig config = testing::graph_mode_config(4);
    config.model = model;
    config.learn_eps = model == ModelKind::kGin;  // gin: W1, b1, W2, b2, eps a layer
    const TrainResult reference = train_one_process(d, config, nullptr);
    const std::size_t tensors = parameter_shapes(model_config_for(1, 2, config)).size();
    CHECK(tensors == (model == ModelKind::kSage  ? 12u
                      : model == ModelKind::kGin ? 20u
                      : model == ModelKind::kGat ? 16u
                                                 : 8u));
    CHECK(reference.weights.size() == tensors);
    for (const char* mode : {"graph", "pipeline"})
      for (int ranks : {2, 4}) {
        INFO(model_kind_name(model) << ", " << mode << ", " << ranks << " ranks");
        for (const TrainResult& got : run_mode(mode, ranks, d, config))
          CHECK(max_difference(got.weights, reference.weights) < 1e-4);  // Adam amplifies sum order
      }
  }
}

TEST_CASE("zero epochs evaluate the initial weights: trained weights give the final accuracies") {
  const Dataset d = testing::graph_mode_dataset(true);
  TrainConfig config = testing::graph_mode_config(3);
  const TrainResult trained = train_one_process(d, config, nullptr);
  REQUIRE(trained.final_eval.val_acc == trained.epochs.back().val_acc);
  TrainConfig evaluate = config;
  evaluate.epochs = 0;
  evaluate.initial_weights = trained.weights;
  const TrainResult local = train_one_process(d, evaluate, nullptr);
  CHECK(local.epochs.empty());
  CHECK(max_difference(local.weights, trained.weights) == 0.0);
  for (const char* mode : {"graph", "pipeline"})
    for (const TrainResult& got : run_mode(mode, 2, d, evaluate)) {
      INFO(mode);
      CHECK(got.final_eval.train_acc == Approx(trained.final_eval.train_acc).margin(1e-9));
      CHECK(got.final_eval.val_acc == Approx(trained.final_eval.val_acc).margin(1e-9));
      CHECK(got.final_eval.test_acc == Approx(trained.final_eval.test_acc).margin(1e-9));
      CHECK(got.test_acc == got.final_eval.test_acc);
      CHECK(got.comm_bytes.empty());
    }
  // The seeded initialization is not the trained model: the check above can fail.
  evaluate.initial_weights.clear();
  CHECK(train_one_process(d, evaluate, nullptr).final_eval.train_acc !=
        trained.final_eval.train_acc);
}

TEST_CASE("initial weights of the wrong count or size are input errors") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  config.epochs = 1;
  Weights w = train_one_process(d, config, nullptr).weights;
  config.initial_weights = Weights(w.begin(), w.end() - 1);
  CHECK_THROWS_WITH(train_one_process(d, config, nullptr),
                    Catch::Contains("initial weights hold 3 tensors, the model has 4"));
  w[1].push_back(0.0f);
  config.initial_weights = w;
  const auto names_it = Catch::Contains("tensor conv1.bias has 24 values, 25 were given");
  CHECK_THROWS_WITH(train_one_process(d, config, nullptr), names_it);
  CHECK_THROWS_WITH(run_mode("pipeline", 2, d, config), names_it);
}

TEST_CASE("a weights file round-trips and names what does not fit") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  config.epochs = 2;
  const ModelConfig model = model_config_for(d.features.cols(), d.num_classes, config);
  const Weights w = train_one_process(d, config, nullptr).weights;
  const std::string path = "test_weights_roundtrip.weights";
  write_weights_file(path, model, w);
  CHECK(read_weights_file(path, model) == w);

  ModelConfig wider = model;
  wider.hidden += 1;
  CHECK_THROWS_WITH(
      read_weights_file(path, wider),
      Catch::Contains("weights of a gcn with 2 layers") &&
          Catch::Contains("this model is a gcn with 2 layers, 12 input features, hidden 25"));
  std::vector<std::byte> bytes = read_file(path);
  bytes[bytes.size() / 2] ^= std::byte{0x10};
  write_file_atomically(path, bytes);
  CHECK_THROWS_WITH(read_weights_file(path, model), Catch::Contains(path));
  Weights bad = w;
  bad[2][1] = std::nanf("");
  CHECK_THROWS_WITH(write_weights_file(path, model, bad),
                    Catch::Contains("conv2.weight[1] is not finite"));
  std::remove(path.c_str());
}

// Chunked stages keep their history in bf16 (ConvStage::stores_history): the losses stay
// within rounding of fp32's, every stale-gradient rule; smoothing, which blends fp32
// history, and --diagnose, which reads outputs no longer kept, are refused with it.
TEST_CASE("bf16 storage of a chunked pipeline's history trains within rounding of fp32") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (ModelKind model : {ModelKind::kGcn, ModelKind::kSage, ModelKind::kGin})
    for (StaleGrad stale : {StaleGrad::kExact, StaleGrad::kDelay})
      for (int ranks : {2, 4}) {  // gcn and sage: stages of 2 layers, and of 1
        if (model == ModelKind::kGin && ranks == 4) continue;  // (2 layers)
        INFO(model_kind_name(model)
             << ", stale gradients " << stale_grad_name(stale) << ", " << ranks << " ranks");
        TrainConfig config = testing::graph_mode_config(model == ModelKind::kGin ? 2 : 4);
        config.model = model;
        config.learn_eps = model == ModelKind::kGin;
        PipelineOptions options;
        options.chunks = 4;
        options.stale_grad = stale;
        const std::vector<TrainResult> fp32 = chunked_pipeline(ranks, d, config, options);
        config.storage = RowCodec::kBf16;
        const std::vector<TrainResult> bf16 = chunked_pipeline(ranks, d, config, options);
        CHECK(max_difference(bf16[0].weights, fp32[0].weights) > 0.0);
        double loss_change = 0;
        for (std::size_t e = 0; e < fp32[0].epochs.size(); ++e)
          loss_change =
              std::max(loss_change, std::abs(bf16[0].epochs[e].loss - fp32[0].epochs[e].loss));
        CHECK(loss_change < 5e-3);
      }
  TrainConfig config = testing::graph_mode_config(2);
  config.storage = RowCodec::kBf16;
  PipelineOptions smoothed;
  smoothed.chunks = 4;
  smoothed.smoothing = 0.3f;
  PipelineOptions diagnosed;
  diagnosed.chunks = 4;
  diagnosed.diagnose = true;
  run_in_process(2, [&](Communicator& comm) {
    CHECK_THROWS_WITH(train_pipeline(comm, d, config, diagnosed, nullptr),
                      Catch::Contains("--diagnose reads each layer's output"));
    CHECK_THROWS_WITH(train_pipeline(comm, d, config, smoothed, nullptr),
                      Catch::Contains("--smoothing blends fp32 history"));
    CHECK_THROWS_WITH(train_hybrid(comm, d, config, smoothed,
                                   {.method = PartitionMethod::kMetis, .parts = 1}, nullptr),
                      Catch::Contains("--smoothing blends fp32 history"));  // stages of 1 part
  });
}

TEST_CASE(
    "recomputing aggregations trains the same weights bit for bit, refused where it cannot run") {
  for (bool sparse : {false, true})
    for (ModelKind model : {ModelKind::kGcn, ModelKind::kSage, ModelKind::kGin}) {
      INFO((sparse ? "sparse" : "dense") << " features, " << model_kind_name(model));
      const Dataset d = testing::graph_mode_dataset(sparse);
      TrainConfig config = testing::graph_mode_config(4);  // layers 0-2 aggregate first
      config.model = model;
      config.learn_eps = model == ModelKind::kGin;
      const TrainResult kept = train_one_process(d, config, nullptr);
      const std::vector<TrainResult> kept_pipeline = run_mode("pipeline", 2, d, config);
      std::vector<std::vector<TrainResult>> kept_graph;  // on 2 and 4 ranks
      for (int ranks : {2, 4}) kept_graph.push_back(run_mode("graph", ranks, d, config));
      config.recompute = true;
      const TrainResult recomputed = train_one_process(d, config, nullptr);
      CHECK(max_difference(recomputed.weights, kept.weights) == 0.0);
      REQUIRE(recomputed.epochs.size() == kept.epochs.size());
      for (std::size_t e = 0; e < kept.epochs.size(); ++e)
        CHECK(recomputed.epochs[e].loss == kept.epochs[e].loss);
      const std::vector<TrainResult> pipeline = run_mode("pipeline", 2, d, config);
      for (std::size_t r = 0; r < pipeline.size(); ++r)
        CHECK(max_difference(pipeline[r].weights, kept_pipeline[r].weights) == 0.0);
      // Graph mode recomputes the layers after the first (their input and its halo rows
      // outlive the backward), but beside a root term (sage).
      for (std::size_t g = 0; g < kept_graph.size(); ++g) {
        const std::vector<TrainResult> graph = run_mode("graph", g == 0 ? 2 : 4, d, config);
        for (std::size_t r = 0; r < graph.size(); ++r)
          CHECK(max_difference(graph[r].weights, kept_graph[g][r].weights) == 0.0);
      }
    }
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  config.recompute = true;
  config.model = ModelKind::kGcnii;
  CHECK_THROWS_WITH(train_one_process(d, config, nullptr),
                    Catch::Contains("--recompute is for models gcn, sage and gin"));
  config.model = ModelKind::kGcn;
  PipelineOptions chunked;
  chunked.chunks = 4;
  run_in_process(2, [&](Communicator& comm) {
    CHECK_THROWS_WITH(train_pipeline(comm, d, config, chunked, nullptr),
                      Catch::Contains("--recompute needs --chunks 1"));
  });
  run_in_process(4, [&](Communicator& comm) {
    CHECK_THROWS_WITH(train_hybrid(comm, d, config, chunked,
                                   {.method = PartitionMethod::kMetis, .parts = 2}, nullptr),
                      Catch::Contains("--recompute is for modes local, graph and pipeline"));
  });
}

TEST_CASE("bf16 storage: every mode trains within rounding of fp32, the exact modes alike") {
  for (ModelKind model : {ModelKind::kGcn, ModelKind::kSage, ModelKind::kGin}) {
    INFO(model_kind_name(model));
    const Dataset d = testing::graph_mode_dataset(false);
    // gin: 2 layers (its unnormalised sums grow layer by layer, to a loss of ~570 with 4 on
    // this graph, where one bf16 rounding apart moves the weights by 1e-2).
    TrainConfig config = testing::graph_mode_config(model == ModelKind::kGin ? 2 : 4);
    config.model = model;  // (gcn, sage: layers 0-2 aggregate first)
    config.learn_eps = model == ModelKind::kGin;
    const TrainResult fp32 = train_one_process(d, config, nullptr);
    config.storage = RowCodec::kBf16;
    const TrainResult bf16 = train_one_process(d, config, nullptr);
    // Adam's normalized steps make weights a poor measure of a small gradient change: the
    // losses of each epoch are compared instead.
    CHECK(max_difference(bf16.weights, fp32.weights) > 0.0);  // the rounded rows were read
    REQUIRE(bf16.epochs.size() == fp32.epochs.size());
    double loss_change = 0;
    for (std::size_t e = 0; e < fp32.epochs.size(); ++e)
      loss_change = std::max(loss_change, std::abs(bf16.epochs[e].loss - fp32.epochs[e].loss));
    CHECK(loss_change < 5e-3);  // about 1e-3 measured
    for (const char* mode : {"graph", "pipeline"})
      for (int ranks : {2, 4}) {
        if (std::string_view(mode) == "pipeline" && ranks > config.layers) continue;
        INFO(mode << ", " << ranks << " ranks");
        for (const TrainResult& got : run_mode(mode, ranks, d, config))
          CHECK(max_difference(got.weights, bf16.weights) < 1e-4);
      }
  }
  TrainConfig config = testing::graph_mode_config(2);
  config.model = ModelKind::kGcnii;
  config.storage = RowCodec::kBf16;
  CHECK_THROWS_WITH(train_one_process(testing::graph_mode_dataset(false), config, nullptr),
                    Catch::Contains("--storage bf16 is for models gcn, sage and gin"));
}
