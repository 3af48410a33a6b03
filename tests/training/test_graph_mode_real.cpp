// Issue-level exactness: Cora and coauthor_cs, 2 and 4 layers, dropout on, 50 epochs,
// METIS and random parts, P = 2 and 4 on the in-process communicator.
#include "graph_mode_checks.h"
#include "real_datasets.h"
#include "strata/comm/in_process_communicator.h"

using namespace strata;

namespace {

void check_dataset(const Dataset& d, ModelKind model = ModelKind::kGcn) {
  for (int layers : {2, 4}) {
    TrainConfig config = testing::graph_mode_config(layers);
    config.model = model;
    config.hidden = 16;
    config.epochs = 50;
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
          testing::check_matches_reference(got, reference, v, p);
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

TEST_CASE("graph mode on coauthor_cs equals one process for 50 epochs") {
  if (const auto d = testing::real_dataset("coauthor_cs", true)) check_dataset(*d);
}
