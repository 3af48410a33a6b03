// Issue-level exactness: Cora and coauthor_cs, 2 and 4 layers, dropout on, 50 epochs,
// METIS and random parts, P = 2 and 4 on the in-process communicator.
#include "graph_mode_checks.h"
#include "real_datasets.h"
#include "strata/comm/in_process_communicator.h"

using namespace strata;

namespace {

void check_dataset(const Dataset& d, ModelKind model = ModelKind::kGcn, bool learn_eps = false,
                   std::initializer_list<int> depths = {2, 4}, double tolerance = 1e-5) {
  for (int layers : depths) {
    TrainConfig config = testing::graph_mode_config(layers);
    config.model = model;
    config.learn_eps = learn_eps;
    config.hidden = 16;
    config.epochs = 50;
    if (model == ModelKind::kGat) {
      config.hidden = 8;
      config.heads = 8;
      config.attention_dropout = 0.6f;
    }
    const TrainResult reference = train_one_process(d, config, nullptr);
    for (auto method : {PartitionMethod::kMetis, PartitionMethod::kRandom})
      for (int p : {2, 4}) {
        INFO(d.name << ", " << model_kind_name(model) << ", " << layers << " layers, "
                    << partition_method_name(method));
        const auto parts = partition_graph(d.adjacency, {method, p});
        std::vector<TrainResult> results(static_cast<std::size_t>(p));
        run_in_process(p, [&](Communicator& comm) {
          results[comm.rank()] = testing::train_rank(comm, d, parts, config);
        });
        const CommVolume v = testing::predicted_volume(d, parts, p, config);
        for (const TrainResult& got : results) {
          testing::check_matches_reference(got, reference, v, p, tolerance);
          CHECK(got.test_acc == Approx(reference.test_acc).margin(0.0011));
        }
      }
  }
}

}  // namespace

TEST_CASE("graph mode on Cora equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("cora", false)) check_dataset(*d);
}

TEST_CASE("graph mode with GraphSAGE on Cora equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("cora", false)) check_dataset(*d, ModelKind::kSage);
}

// A learnt eps is one scalar whose gradient, a sum over every vertex, nears zero as eps
// settles, where Adam's normalised step turns rounding into whole steps: with 4 layers and
// random parts the losses part by 1.3e-5 at epoch 18 (8e-8 at epoch 0, 1e-6 at epoch 10,
// then growing), so 2 layers here, and within 1e-3: at 2 layers with random parts they part
// by up to 3.6e-4 of a loss near 0.07 from epoch 21 on one AVX-512 machine (within 1e-5 on
// another); a wrong gradient parts them by far more. eps 0 at both depths, within 1e-5.
TEST_CASE("graph mode with GIN on Cora equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("cora", false)) {
    check_dataset(*d, ModelKind::kGin);
    check_dataset(*d, ModelKind::kGin, true, {2}, 1e-3);
  }
}

// 8 heads of 8 with attention dropout, as the paper's Cora model: the masks are keyed by
// global ids, so every partition draws the same.
TEST_CASE("graph mode with GAT on Cora equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("cora", false)) check_dataset(*d, ModelKind::kGat);
}

TEST_CASE("graph mode on coauthor_cs equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("coauthor_cs", true)) check_dataset(*d);
}
