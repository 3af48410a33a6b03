// Hybrid mode (S stages x G parts): S = 1 is graph mode, G = 1 is pipeline mode, one
// chunk is exact, and the counted bytes are the model's, category by category.
#include <catch2/catch.hpp>
#include <cmath>

#include "graph_mode_checks.h"
#include "stage_runs.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/partition/partitioner.h"
#include "strata/partition/quality.h"
#include "strata/training/modes.h"

using namespace strata;

namespace {

void check_same_bytes(const TrainResult& got, const TrainResult& want) {
  REQUIRE(got.epochs.size() == want.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e)
    for (const auto& [name, bytes] : want.epochs[e].comm_bytes) {
      INFO(name);
      CHECK(got.epochs[e].comm_bytes.at(name) == bytes);
    }
}

void check_same(const TrainResult& got, const TrainResult& want, double tolerance) {
  REQUIRE(got.epochs.size() == want.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    INFO("epoch " << e);
    CHECK(std::abs(got.epochs[e].loss - want.epochs[e].loss) <=
          tolerance * std::abs(want.epochs[e].loss));
    CHECK(got.epochs[e].val_acc == Approx(want.epochs[e].val_acc).margin(0.01));
  }
}

TrainConfig config_for(ModelKind model) {
  TrainConfig c = testing::graph_mode_config(4);
  c.model = model;
  return c;
}

}  // namespace

TEST_CASE("hybrid with one stage is graph mode: same losses and bytes") {
  const Dataset d = testing::graph_mode_dataset(true);
  PipelineOptions one_chunk;
  one_chunk.chunks = 1;
  for (ModelKind model : testing::kModels) {
    const TrainConfig c = config_for(model);
    const auto parts = partition_graph(d.adjacency, testing::metis_parts(3));
    std::vector<TrainResult> graph(3);
    run_in_process(3, [&](Communicator& comm) {
      graph[comm.rank()] = testing::train_rank(comm, d, parts, c);
    });
    for (const TrainResult& got : testing::run_hybrid(1, 3, d, c, one_chunk)) {
      INFO(model_kind_name(model));
      check_same(got, graph[0], 1e-5);
      check_same_bytes(got, graph[0]);
    }
  }
}

TEST_CASE("hybrid with one part is pipeline mode: same losses and bytes") {
  const Dataset d = testing::graph_mode_dataset(false);
  PipelineOptions chunked;
  chunked.chunks = 3;
  for (ModelKind model : testing::kModels) {
    const TrainConfig c = config_for(model);
    std::vector<TrainResult> pipeline(2);
    run_in_process(2, [&](Communicator& comm) {
      pipeline[comm.rank()] = train_pipeline(comm, d, c, chunked, nullptr);
    });
    for (const TrainResult& got : testing::run_hybrid(2, 1, d, c, chunked)) {
      INFO(model_kind_name(model));
      check_same(got, pipeline[0], 1e-6);
      REQUIRE(!pipeline[0].weights.empty());
      CHECK(got.weights == pipeline[0].weights);
      check_same_bytes(got, pipeline[0]);
    }
  }
}

TEST_CASE("hybrid with one chunk is exact on 2 stages x 2 parts, bytes as predicted") {
  for (bool sparse : {false, true})
    for (ModelKind model : testing::kModels) {
      const Dataset d = testing::graph_mode_dataset(sparse);
      const TrainConfig c = config_for(model);
      const TrainResult reference = train_one_process(d, c, nullptr);
      PipelineOptions one_chunk;
      one_chunk.chunks = 1;
      INFO(model_kind_name(model) << (sparse ? ", sparse" : ", dense"));
      for (const TrainResult& got : testing::run_hybrid(2, 2, d, c, one_chunk)) {
        check_same(got, reference, 1e-5);
        testing::check_all_bytes(got, testing::stages_predicted(d, c, 2, 2));
      }
    }
}

TEST_CASE("chunked hybrid: bytes as predicted, history read, close to exact training") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (ModelKind model : testing::kModels) {
    TrainConfig c = config_for(model);
    c.epochs = 40;
    c.dropout = 0.0f;
    const double exact = train_one_process(d, c, nullptr).epochs.back().loss;
    std::vector<double> final_loss;
    for (StaleGrad stale : {StaleGrad::kDrop, StaleGrad::kDelay}) {
      PipelineOptions o;
      o.chunks = 4;
      o.stale_grad = stale;
      INFO(model_kind_name(model) << (stale == StaleGrad::kDelay ? ", delay" : ", drop"));
      const std::vector<TrainResult> results = testing::run_hybrid(2, 2, d, c, o);
      for (const TrainResult& got : results) {
        testing::check_all_bytes(got, testing::stages_predicted(d, c, 2, 2));
        CHECK(got.epochs.back().history_fraction > 0.0);
        const double first = got.epochs.front().loss, last = got.epochs.back().loss;
        CHECK(std::isfinite(last));
        CHECK(last < 0.9 * first);  // it learns
        // Delaying stale gradients is less stable than dropping them: a looser bound
        // (measured at 40 epochs, delay / exact: gcn 1.29, gcnii 1.05, sage 1.37). gin sums
        // its neighbours' rows unnormalised, stale ones too: drop 1.99, delay 2.00. gat
        // delay 1.67: its history holds P = X W of last epoch's W, whose delayed gradient
        // meets this epoch's attention.
        const bool delay = stale == StaleGrad::kDelay;
        const double bound = model == ModelKind::kGin   ? 2.4
                             : !delay                   ? 1.3
                             : model == ModelKind::kGat ? 1.9
                                                        : 1.6;
        CHECK(last < bound * exact);
      }
      final_loss.push_back(results[0].epochs.back().loss);
    }
    // Delayed gradients are applied a step later rather than dropped: the runs differ.
    CHECK(final_loss[0] != final_loss[1]);
  }
}

// As in pipeline mode: without dropout the history is exact, so with the exact backward
// (every row at once) a chunked hybrid run is one process's training.
TEST_CASE("chunked hybrid with exact stale gradients and exact history is exact") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (ModelKind model : testing::kModels) {
    TrainConfig c = config_for(model);
    c.epochs = 10;
    c.dropout = 0.0f;
    const TrainResult reference = train_one_process(d, c, nullptr);
    PipelineOptions o;
    o.chunks = 4;
    o.warmup_epochs = 1;
    o.stale_grad = StaleGrad::kExact;
    INFO(model_kind_name(model));
    for (const TrainResult& got : testing::run_hybrid(2, 2, d, c, o)) {
      check_same(got, reference, 1e-5);
      testing::check_all_bytes(got, testing::stages_predicted(d, c, 2, 2));
      CHECK(got.epochs.back().history_fraction > 0.0);
    }
  }
}

TEST_CASE("a first-stage hybrid rank that keeps its part's features trains as with all") {
  // What the facade keeps (FeatureMatrix::keeping_rows on stage 0, without_values after):
  // the same weights, bit for bit, as every rank holding every feature.
  for (const bool sparse : {false, true}) {
    const Dataset d = testing::graph_mode_dataset(sparse);
    const TrainConfig c = config_for(ModelKind::kGcn);
    const auto part_of = partition_graph(d.adjacency, testing::metis_parts(2));
    std::vector<TrainResult> all(4), kept(4);
    run_in_process(4, [&](Communicator& comm) {
      all[comm.rank()] = train_hybrid(comm, d, c, {}, testing::metis_parts(2), part_of, nullptr);
      Dataset mine = d;
      const std::vector<GlobalId> part = vertices_of_part(part_of, comm.rank() % 2);
      mine.features = comm.rank() < 2 ? d.features.keeping_rows(part) : d.features.without_values();
      kept[comm.rank()] =
          train_hybrid(comm, mine, c, {}, testing::metis_parts(2), part_of, nullptr);
    });
    INFO((sparse ? "sparse" : "dense"));
    for (int r = 0; r < 4; ++r) {
      CHECK(kept[r].weights == all[r].weights);
      CHECK(kept[r].epochs.back().loss == all[r].epochs.back().loss);
    }
  }
}

TEST_CASE("hybrid rank counts that do not factor are input errors") {
  const Dataset d = testing::graph_mode_dataset(false);
  const TrainConfig c = config_for(ModelKind::kGcn);
  std::vector<std::string> errors(3);
  run_in_process(3, [&](Communicator& comm) {
    try {
      train_hybrid(comm, d, c, {}, testing::metis_parts(2), nullptr);
    } catch (const Error& e) {
      errors[comm.rank()] = e.what();
    }
  });
  for (const std::string& e : errors)
    CHECK(e == "hybrid mode with --parts 2 needs a multiple of 2 ranks, the job has 3");
}

TEST_CASE("the memory estimate's part sizes are the rows a hybrid rank builds") {
  const Dataset d = testing::graph_mode_dataset(true);
  for (int parts : {2, 3}) {
    const auto part_of = partition_graph(d.adjacency, testing::metis_parts(parts));
    const std::vector<std::int32_t> chunk_of(static_cast<std::size_t>(d.adjacency.rows), 0);
    for (int p = 0; p < parts; ++p) {
      INFO("part " << p << " of " << parts);
      const PartSizes sizes = measure_part(d.adjacency, part_of, p);
      const RowLayout layout =
          part_layout(d.adjacency, part_of, parts, p, chunk_of, 1, Propagation::kGcn);
      std::int64_t sent = 0;
      for (const auto& list : layout.whole_plan.send)
        sent += static_cast<std::int64_t>(list.size());
      CHECK(sizes.owned == layout.owned);
      CHECK(sizes.halo == layout.halo);
      CHECK(sizes.entries == layout.a_hat.nnz());
      CHECK(sizes.sent == sent);
      CHECK(sizes.sent > 0);
    }
  }
}
