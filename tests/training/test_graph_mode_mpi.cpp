// Every mode under real MPI; ctest runs this with mpirun -np 1, 2 and 4: graph mode, and
// pipeline and hybrid mode with one chunk, train exactly like one process, bytes as
// predicted. An exception on one rank calls MPI_Abort, so no rank waits forever in a
// collective.
#define CATCH_CONFIG_RUNNER
#include "catch_session.h"
#include "graph_mode_checks.h"
#include "real_datasets.h"
#include "strata/comm/mpi_communicator.h"
#include "strata/comm/mpi_session.h"

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

// Under MPI the halo moves only when a rank calls into MPI: overlapped, it travels while
// the owned columns multiply, and the results keep every bit.
TEST_CASE("mpi graph mode: the halo exchange overlapped or not, the same bits") {
  MpiCommunicator comm;
  try {
    for (ModelKind model : testing::kModels) {
      INFO(model_kind_name(model));
      const Dataset d = testing::graph_mode_dataset(true);
      TrainConfig config = testing::graph_mode_config(3);
      config.model = model;
      const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, comm.size()});
      config.overlap = false;
      const TrainResult off = testing::train_rank(comm, d, parts, config);
      config.overlap = true;
      testing::check_same_bits(testing::train_rank(comm, d, parts, config), off);
    }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

// One chunk: no history, so every stage layout computes what one process computes.
TEST_CASE("mpi: pipeline and hybrid mode with one chunk train exactly like one process") {
  MpiCommunicator comm;
  try {
    const Dataset d = testing::graph_mode_dataset(false);
    const int parts = comm.size() % 2 == 0 ? 2 : 1;
    const PartitionOptions partition{.method = PartitionMethod::kMetis, .parts = parts};
    const auto part_of = hybrid_partition(d, partition);
    for (ModelKind model : testing::kModels) {
      INFO(model_kind_name(model) << ", " << parts << " parts");
      TrainConfig config = testing::graph_mode_config(4);
      config.model = model;
      config.learn_eps = model == ModelKind::kGin;
      PipelineOptions options;
      options.chunks = 1;
      const TrainResult reference = train_one_process(d, config, nullptr);
      const TrainResult pipeline = train_pipeline(comm, d, config, options, nullptr);
      testing::check_same_losses(pipeline, reference);
      const ModelShape shape = testing::shape_of(d, config);
      const StageBounds bounds = split_layers_by_cost(shape.costs, comm.size());
      testing::check_stage_bytes(pipeline, pipeline_volume(shape, bounds, d.adjacency.rows));
      const TrainResult hybrid =
          train_hybrid(comm, d, config, options, partition, part_of, nullptr);
      testing::check_same_losses(hybrid, reference);
    }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

// Compressed rows through MPI: each format's counted bytes are the predicted ones in every
// mode, and the int8 runs repeat bit for bit.
TEST_CASE("mpi: every row format sends the predicted bytes in graph, pipeline and hybrid mode") {
  MpiCommunicator comm;
  try {
    const Dataset d = testing::graph_mode_dataset(false);
    const auto graph_parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, comm.size()});
    const int parts = comm.size() % 2 == 0 ? 2 : 1;
    const PartitionOptions partition{.method = PartitionMethod::kMetis, .parts = parts};
    const auto part_of = hybrid_partition(d, partition);
    const std::int64_t pairs =
        parts == 1 ? 0 : measure_partition(d.adjacency, part_of, parts).boundary_pairs;
    PipelineOptions options;
    options.chunks = 3;
    for (const RowCodec codec : {RowCodec::kFloat32, RowCodec::kBf16, RowCodec::kInt8}) {
      INFO(row_codec_name(codec));
      TrainConfig config = testing::graph_mode_config(4);
      config.model = ModelKind::kGcnii;
      config.compress = {codec, codec};
      const TrainResult graph = testing::train_rank(comm, d, graph_parts, config);
      testing::check_all_bytes(graph,
                               testing::predicted_volume(d, graph_parts, comm.size(), config));
      testing::check_same_bits(testing::train_rank(comm, d, graph_parts, config), graph);
      const ModelShape shape = testing::shape_of(d, config);
      const WireFormat wire = wire_format_of(DType::kFloat64, config.compress);
      testing::check_all_bytes(
          train_pipeline(comm, d, config, options, nullptr),
          pipeline_volume(shape, split_layers_by_cost(shape.costs, comm.size()), d.adjacency.rows,
                          wire));
      const int stages = comm.size() / parts;
      testing::check_all_bytes(train_hybrid(comm, d, config, options, partition, part_of, nullptr),
                               hybrid_volume(shape, split_layers_by_cost(shape.costs, stages),
                                             pairs, parts, d.adjacency.rows, wire));
    }
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}

TEST_CASE("mpi graph mode on Cora and coauthor_cs, 2 and 4 layers, METIS and random", "[real]") {
  MpiCommunicator comm;
  try {
    for (const auto& [name, binarize, model] :
         {std::tuple{"cora", false, ModelKind::kGcn}, std::tuple{"cora", false, ModelKind::kSage},
          std::tuple{"coauthor_cs", true, ModelKind::kGcn}}) {
      const auto d = testing::real_dataset(name, binarize);
      if (!d) continue;
      for (int layers : {2, 4})
        for (auto method : {PartitionMethod::kMetis, PartitionMethod::kRandom}) {
          INFO(name << ", " << model_kind_name(model) << ", " << layers << " layers, "
                    << partition_method_name(method));
          TrainConfig config = testing::graph_mode_config(layers);
          config.model = model;
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

// Failed if any rank failed; skipped (77) only if every rank skipped everything it ran.
int main(int argc, char** argv) {
  MpiSession session(&argc, &argv);
  const int status = test::exit_status(Catch::Session().run(argc, argv));
  int failed = status != 0 && status != test::kSkipReturnCode ? 1 : 0;
  int skipped = status == test::kSkipReturnCode ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &skipped, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return failed != 0 ? 1 : skipped != 0 ? test::kSkipReturnCode : 0;
}
