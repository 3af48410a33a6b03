// Graph mode, and the backend trainers of every mode, under real MPI; ctest runs this with mpirun
// -np 1, 2 and 4. An exception on one rank calls MPI_Abort, so no rank waits forever in a
// collective.
#define CATCH_CONFIG_RUNNER
#include "backend_checks.h"
#include "graph_mode_checks.h"
#include "real_datasets.h"
#include "strata/comm/mpi_communicator.h"
#include "strata/comm/mpi_session.h"
#include "strata/pipeline/backend_pipeline.h"
#include "strata/pipeline/pipeline_trainer.h"

using namespace strata;

TEST_CASE("mpi graph mode trains exactly like one process, bytes as predicted") {
  MpiCommunicator comm;
  try {
    for (bool sparse : {false, true})
      for (int layers : {2, 3}) {
        INFO((sparse ? "sparse" : "dense") << " features, " << layers << " layers");
        const Dataset d = testing::graph_mode_dataset(sparse);
        const TrainConfig config = testing::graph_mode_config(layers);
        const TrainResult reference = train_one_process(d, config, nullptr);
        const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, comm.size()});
        const TrainResult got = testing::train_rank(comm, d, parts, config);
        testing::check_matches_reference(
            got, reference, testing::predicted_volume(d, parts, comm.size(), config), comm.size());
      }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

TEST_CASE("mpi: the backend trainer on the CPU backend matches one process") {
  MpiCommunicator comm;
  try {
    for (int layers : {2, 3}) {
      INFO(layers << " layers");
      const Dataset d = testing::graph_mode_dataset(false);
      const TrainConfig config = testing::graph_mode_config(layers);
      const TrainResult reference = train_one_process(d, config, nullptr);
      const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, comm.size()});
      const TrainResult got = testing::train_backend_rank(comm, d, parts, config);
      testing::check_close_to_backend_reference(
          got, reference, testing::predicted_volume(d, parts, comm.size(), config));
    }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

TEST_CASE("mpi: pipeline and hybrid on the CPU backend track the host stages") {
  MpiCommunicator comm;
  try {
    const auto backend = kernels::make_cpu_backend();
    const Dataset d = testing::graph_mode_dataset(false);
    const int parts = comm.size() % 2 == 0 ? 2 : 1;
    const PartitionOptions partition{.method = PartitionMethod::kMetis, .parts = parts};
    const auto part_of = hybrid_partition(d, partition);
    for (const char* model : {"gcn", "gcnii"})
      for (int chunks : {1, 3}) {
        INFO(model << ", " << chunks << " chunks, " << parts << " parts");
        TrainConfig config = testing::graph_mode_config(4);
        config.model = model;
        PipelineOptions options;
        options.chunks = chunks;
        const TrainResult host = train_pipeline(comm, d, config, options, nullptr);
        const TrainResult got =
            train_pipeline_on_backend(comm, *backend, nullptr, d, config, options, nullptr);
        testing::check_close(got, host, 1e-4);
        testing::check_bytes(got, host);
        const TrainResult hybrid_host =
            train_hybrid(comm, d, config, options, partition, part_of, nullptr);
        const TrainResult hybrid = train_hybrid_on_backend(comm, *backend, nullptr, d, config,
                                                           options, partition, part_of, nullptr);
        testing::check_close(hybrid, hybrid_host, 1e-4);
        testing::check_bytes(hybrid, hybrid_host);
      }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

TEST_CASE("mpi graph mode on Cora and coauthor_cs, 2 and 4 layers, METIS and random") {
  MpiCommunicator comm;
  try {
    for (const auto& [name, binarize] :
         {std::pair{"cora", false}, std::pair{"coauthor_cs", true}}) {
      const auto d = testing::real_dataset(name, binarize);
      if (!d) continue;
      for (int layers : {2, 4})
        for (auto method : {PartitionMethod::kMetis, PartitionMethod::kRandom}) {
          INFO(name << ", " << layers << " layers, " << partition_method_name(method));
          TrainConfig config = testing::graph_mode_config(layers);
          config.hidden = 16;
          config.epochs = 50;
          const TrainResult reference = train_one_process(*d, config, nullptr);
          const auto parts = partition_graph(d->adjacency, {method, comm.size()});
          const TrainResult got = testing::train_rank(comm, *d, parts, config);
          testing::check_matches_reference(
              got, reference, testing::predicted_volume(*d, parts, comm.size(), config),
              comm.size());
          CHECK(got.test_acc == Approx(reference.test_acc).margin(0.0011));
        }
    }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

int main(int argc, char** argv) {
  MpiSession session(&argc, &argv);
  return Catch::Session().run(argc, argv);
}
