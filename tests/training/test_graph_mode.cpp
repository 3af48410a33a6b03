#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"

using namespace strata;

TEST_CASE("graph mode on 1, 2, 3 and 4 threads trains exactly like one process") {
  for (ModelKind model : testing::kModels)
    for (bool sparse : {false, true})
      for (int layers : {2, 3}) {
        const Dataset d = testing::graph_mode_dataset(sparse);
        TrainConfig config = testing::graph_mode_config(layers);
        config.model = model;
        config.learn_eps = model == ModelKind::kGin && layers == 3;  // gin: eps 0 and learnt
        if (model == ModelKind::kGat) {  // attention dropout keyed by global ids
          config.heads = 2;
          config.output_heads = layers;
          config.attention_dropout = 0.3f;
        }
        const TrainResult reference = train_one_process(d, config, nullptr);
        for (int p : {1, 2, 3, 4}) {
          INFO(model_kind_name(model)
               << ", " << (sparse ? "sparse" : "dense") << " features, " << layers << " layers"
               << (config.learn_eps ? ", eps learnt" : ""));
          const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, p});
          std::vector<TrainResult> results(static_cast<std::size_t>(p));
          run_in_process(p, [&](Communicator& comm) {
            results[comm.rank()] = testing::train_rank(comm, d, parts, config);
          });
          const CommVolume v = testing::predicted_volume(d, parts, p, config);
          for (const TrainResult& got : results)
            testing::check_matches_reference(got, reference, v, p);
        }
      }
}

// 9,000 vertices: 2 or 4 parts of several pieces each (block_rows.cpp), so the halo is
// in flight across more than one product.
TEST_CASE("overlapping the halo exchange changes no bit, and stays exact against one process") {
  LoadOptions options;
  options.nodes = 9000;
  options.avg_degree = 6;
  options.features = 12;
  options.classes = 4;
  options.seed = 8;
  const Dataset d = load_dataset("synthetic", options);
  for (ModelKind model : testing::kModels) {
    TrainConfig config = testing::graph_mode_config(3);
    config.model = model;
    config.epochs = 3;
    const TrainResult reference = train_one_process(d, config, nullptr);
    for (int p : {2, 4}) {
      INFO(model_kind_name(model) << ", P = " << p);
      const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, p});
      std::vector<TrainResult> on(static_cast<std::size_t>(p)), off = on;
      for (bool overlap : {true, false}) {
        config.overlap = overlap;
        run_in_process(p, [&](Communicator& comm) {
          (overlap ? on : off)[comm.rank()] = testing::train_rank(comm, d, parts, config);
        });
      }
      const CommVolume v = testing::predicted_volume(d, parts, p, config);
      for (int r = 0; r < p; ++r) {
        testing::check_same_bits(on[r], off[r]);
        testing::check_matches_reference(on[r], reference, v, p);
        for (std::size_t e = 0; e < on[r].epochs.size(); ++e) {
          CHECK(on[r].epochs[e].comm_overlap_s > 0.0);  // the halo travelled while it computed
          CHECK(off[r].epochs[e].comm_overlap_s == 0.0);
        }
      }
    }
  }
}

TEST_CASE("on-the-fly scatter gives each rank the shard it would read from a file") {
  const Dataset d = testing::graph_mode_dataset(true);
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, 3});
  std::vector<Shard> got(3);
  run_in_process(3, [&](Communicator& comm) {
    got[comm.rank()] =
        scatter_shards(comm, comm.rank() == 0 ? &d : nullptr, {PartitionMethod::kMetis, 3});
  });
  for (int p = 0; p < 3; ++p) {
    const Shard expected = make_shard(d, parts, 3, p);
    CHECK(got[p].graph.local_to_global == expected.graph.local_to_global);
    CHECK(got[p].graph.plan.send == expected.graph.plan.send);
    CHECK(got[p].features == expected.features);
  }
}

TEST_CASE("a rank that fails makes every rank fail, naming it, instead of hanging") {
  const Dataset d = testing::graph_mode_dataset(false);
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, 3});
  TrainConfig config = testing::graph_mode_config(2);
  CHECK_THROWS_WITH(run_in_process(3,
                                   [&](Communicator& comm) {
                                     Shard shard = make_shard(d, parts, 3, comm.rank());
                                     if (comm.rank() == 2) shard.graph.part = 0;  // wrong shard
                                     train_graph_parallel(comm, shard, config, nullptr);
                                   }),
                    Catch::Contains("rank 2"));
}
