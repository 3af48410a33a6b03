// `strata train`: one process (--mode local), or one rank of an MPI job (graph, pipeline).
#include <array>
#include <cstdio>
#include <span>

#include "commands.h"
#include "metrics_output.h"

namespace strata::cli {
namespace {

void print_dataset(const Dataset& data) {
  std::printf("dataset %s: %d vertices, %lld edges, %lld features (%s, density %.4f), %d classes\n",
              data.name.c_str(), data.adjacency.rows, static_cast<long long>(data.adjacency.nnz()),
              static_cast<long long>(data.features.cols()),
              data.features.is_sparse() ? "sparse" : "dense", data.features.density(),
              data.num_classes);
}

void validate_mode(const TrainArgs& args) {
  STRATA_REQUIRE(args.mode == "local" || args.mode == "graph" || args.mode == "pipeline",
                 "--mode must be local, graph or pipeline, got '", args.mode, "'");
  STRATA_REQUIRE(args.shards.empty() || args.mode == "graph", "--shards is for --mode graph");
  validate_train_config(args.train);
}

int run_local(const TrainArgs& args) {
  const Dataset data = load_dataset(args.data.dataset, args.data.load);
  print_dataset(data);
  MetricsOutput out(args.metrics_path, true);
  out.finish(train_one_process(data, args.train, [&](const EpochMetrics& m) { out.epoch(m); }));
  return 0;
}

// Without shard files, rank 0 loads and partitions the whole dataset and sends the shards.
Shard graph_shard(Communicator& comm, const TrainArgs& args) {
  Shard shard;
  if (!args.shards.empty()) {
    run_agreed(comm, [&] { shard = read_shard(args.shards, comm.rank(), comm.size()); });
    return shard;
  }
  std::vector<std::vector<std::byte>> prepared;
  run_agreed(comm, [&] {
    if (comm.rank() != 0) return;
    const Dataset data = load_dataset(args.data.dataset, args.data.load);
    print_dataset(data);
    prepared = prepare_shards(data, args.partition, comm.size());
  });
  return exchange_shards(comm, std::move(prepared));
}

// Rank 0 prints each rank's peak resident memory next to its estimate.
void report_peak_memory(Communicator& comm, std::int64_t estimate_bytes) {
  const std::array<double, 2> mine{static_cast<double>(estimate_bytes),
                                   static_cast<double>(peak_resident_bytes())};
  std::vector<double> all(2 * static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)),
                  CommCategory::kControl);
  if (comm.rank() != 0) return;
  for (int r = 0; r < comm.size(); ++r)
    std::printf(
        "memory, rank %d: peak resident %.1f MB, estimated %.1f MB (measured/estimate %.2f)\n", r,
        all[2 * r + 1] / 1e6, all[2 * r] / 1e6, all[2 * r + 1] / all[2 * r]);
}

TrainResult train_distributed(Communicator& comm, const TrainArgs& args, MetricsOutput& out,
                              std::int64_t baseline_bytes) {
  const auto on_epoch = [&](const EpochMetrics& m) { out.epoch(m); };
  if (args.mode == "graph") {
    const Shard shard = graph_shard(comm, args);
    return train_graph_parallel(comm, shard, args.train, on_epoch);
  }
  Dataset data;
  run_agreed(comm, [&] {
    data = load_dataset(args.data.dataset, args.data.load);
    STRATA_REQUIRE(args.stages == 0 || args.stages == comm.size(), "--stages ", args.stages,
                   " but the job has ", comm.size(), " ranks (one stage per rank)");
    validate_pipeline_options(args.pipeline, comm.size(), args.train.layers);
  });
  if (comm.rank() == 0) print_dataset(data);
  const MemoryEstimate estimate =
      estimate_pipeline_rank(data, args.train, args.pipeline, comm.size(), comm.rank());
  if (comm.rank() == 0) {
    const StageBounds bounds = pipeline_stage_bounds(data, args.train, args.pipeline, comm.size());
    for (int s = 0; s < comm.size(); ++s)
      std::printf(
          "stage %d: layers %d-%d, memory estimate %s + %.1f MB process baseline\n", s,
          bounds[s] + 1, bounds[s + 1],
          describe(estimate_pipeline_rank(data, args.train, args.pipeline, comm.size(), s)).c_str(),
          static_cast<double>(baseline_bytes) / 1e6);
  }
  TrainResult result = train_pipeline(comm, data, args.train, args.pipeline, on_epoch);
  report_peak_memory(comm, estimate.total() + baseline_bytes);
  return result;
}

}  // namespace

int run_train(const TrainArgs& args) {
  validate_mode(args);
  if (args.mode == "local") return run_local(args);
  MpiSession session(nullptr, nullptr);
  MpiCommunicator comm;
  const std::int64_t baseline_bytes = current_resident_bytes();  // MPI up, no data yet
  MetricsOutput out(comm.rank() == 0 ? args.metrics_path : std::string(), comm.rank() == 0);
  TrainResult result;
  try {
    result = train_distributed(comm, args, out, baseline_bytes);
  } catch (const AgreedError& e) {
    // Setup errors are agreed on: every rank has this one, rank 0 reports it, all exit
    // alike. Anything else ends the whole job from the rank that saw it.
    if (comm.rank() == 0) std::fprintf(stderr, "strata: error: %s\n", e.what());
    return e.kind() == ErrorKind::kInput ? 2 : 1;
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
  out.finish(result);
  return 0;
}

}  // namespace strata::cli
