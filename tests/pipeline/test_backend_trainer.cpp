// The backend trainer (what --device cuda runs) on the CPU backend: the same code, with
// only the table of operations swapped, against the reference trainers. Gradients are
// summed in float there (double in the reference), so losses agree to float rounding.
#include <filesystem>

#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"

using namespace strata;

using testing::check_close_to_backend_reference;
using testing::train_backend_rank;

TEST_CASE("the backend trainer on the CPU backend matches one process on 1, 2 and 4 ranks") {
  for (const char* model : {"gcn", "gcnii"})
    for (bool sparse : {false, true})
      for (int layers : {2, 3}) {
        const Dataset d = testing::graph_mode_dataset(sparse);
        TrainConfig config = testing::graph_mode_config(layers);
        config.model = model;
        const TrainResult reference = train_one_process(d, config, nullptr);
        for (int p : {1, 2, 4}) {
          INFO(model << ", " << (sparse ? "sparse" : "dense") << " features, " << layers
                     << " layers, P = " << p);
          const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, p});
          std::vector<TrainResult> results(static_cast<std::size_t>(p));
          run_in_process(p, [&](Communicator& comm) {
            results[comm.rank()] = train_backend_rank(comm, d, parts, config);
          });
          const CommVolume v = testing::predicted_volume(d, parts, p, config);
          for (const TrainResult& got : results)
            check_close_to_backend_reference(got, reference, v);
        }
      }
}

TEST_CASE("a backend run resumed from a checkpoint ends with the uninterrupted run's weights") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(2);
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, 2});
  std::vector<TrainResult> whole(2), resumed(2);
  run_in_process(2, [&](Communicator& comm) {
    whole[comm.rank()] = train_backend_rank(comm, d, parts, config);
  });
  const std::string dir = "backend_resume_checkpoints";
  std::filesystem::remove_all(dir);
  config.checkpoint.dir = dir;
  config.checkpoint.every = 1;
  config.epochs = 3;
  run_in_process(2, [&](Communicator& comm) { train_backend_rank(comm, d, parts, config); });
  config.epochs = 6;
  config.checkpoint.resume = true;
  run_in_process(2, [&](Communicator& comm) {
    resumed[comm.rank()] = train_backend_rank(comm, d, parts, config);
  });
  std::filesystem::remove_all(dir);
  CHECK(resumed[0].resumed_epochs == 3);
  CHECK(resumed[0].weights == whole[0].weights);
  CHECK(resumed[1].weights == whole[1].weights);
}
