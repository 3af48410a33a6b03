// GCN's Â formed from its degrees (--adjacency degrees) trains what Â with its values stored
// trains, bit for bit, in every mode; refused where no value is stored either way.
#include <catch2/catch.hpp>

#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/training/modes.h"

using namespace strata;

namespace {

// Every rank's weights and losses in `mode` (local: one process; pipeline and hybrid with
// 2 chunks, so that chunks read history).
std::vector<TrainResult> run(const std::string& mode, const Dataset& d, const TrainConfig& config) {
  if (mode == "local") return {train_one_process(d, config, nullptr)};
  const int ranks = mode == "hybrid" ? 4 : 2;
  std::vector<TrainResult> results(static_cast<std::size_t>(ranks));
  const auto parts = partition_graph(d.adjacency, {.method = PartitionMethod::kMetis, .parts = 2});
  PipelineOptions options;
  options.chunks = 2;
  run_in_process(ranks, [&](Communicator& comm) {
    TrainResult& r = results[static_cast<std::size_t>(comm.rank())];
    if (mode == "graph")
      r = testing::train_rank(comm, d, parts, config);
    else if (mode == "pipeline")
      r = train_pipeline(comm, d, config, options, nullptr);
    else
      r = train_hybrid(comm, d, config, options, {.method = PartitionMethod::kMetis, .parts = 2},
                       nullptr);
  });
  return results;
}

void check_same(const std::vector<TrainResult>& a, const std::vector<TrainResult>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t r = 0; r < a.size(); ++r) {
    REQUIRE(!a[r].weights.empty());
    CHECK(a[r].weights == b[r].weights);
    REQUIRE(a[r].epochs.size() == b[r].epochs.size());
    for (std::size_t e = 0; e < a[r].epochs.size(); ++e)
      CHECK(a[r].epochs[e].loss == b[r].epochs[e].loss);
  }
}

}  // namespace

TEST_CASE("Â formed from its degrees trains the weights of Â stored, bit for bit, every mode") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (ModelKind model : {ModelKind::kGcn, ModelKind::kGcnii})
    for (const char* mode : {"local", "graph", "pipeline", "hybrid"}) {
      INFO(model_kind_name(model) << " in mode " << mode);
      TrainConfig config = testing::graph_mode_config(model == ModelKind::kGcnii ? 4 : 3);
      config.model = model;
      config.epochs = 3;
      const std::vector<TrainResult> stored = run(mode, d, config);
      config.factored_adjacency = true;
      check_same(run(mode, d, config), stored);
    }
}

TEST_CASE("adjacency from degrees is refused for models that keep no value an entry") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  config.factored_adjacency = true;
  for (ModelKind model : {ModelKind::kSage, ModelKind::kGin, ModelKind::kGat}) {
    config.model = model;
    CHECK_THROWS_WITH(train_one_process(d, config, nullptr),
                      Catch::Contains("--adjacency degrees is for models gcn and gcnii"));
  }
}
