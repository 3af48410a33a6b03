// The collective part of building a Trainer: config checks, then the graph, loaded or
// received the way the mode needs it.
#include "conversions.h"
#include "device_run.h"
#include "graph_input.h"
#include "spans_input.h"
#include "strata/comm/agreed.h"
#include "strata/core/memory.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard_scatter.h"
#include "strata/training/interior_first.h"
#include "strata/training/modes.h"
#include "strata/training/training_common.h"
#include "trainer_state.h"

namespace strata {
namespace {

void validate_hybrid(const Config& c, int ranks) {
  const int parts = c.hybrid.parts;
  STRATA_REQUIRE(parts >= 1, "--parts must be at least 1, got ", parts);
  STRATA_REQUIRE(ranks % parts == 0, "hybrid mode with --parts ", parts, " needs a multiple of ",
                 parts, " ranks, the job has ", ranks);
  validate_pipeline_options(to_pipeline_options(c.pipeline), ranks / parts, c.model.layers);
}

void validate(const Config& c, const GraphInput::Source& source, int ranks) {
  validate_train_config(to_train_config(c));
  parse_partition_method(c.partition.method);  // a bad name fails here, on every rank
  validate_device(c);
  STRATA_REQUIRE(c.mode != Mode::kLocal || ranks == 1, "mode local runs on one rank, the job has ",
                 ranks);
  if (c.mode == Mode::kPipeline)
    validate_pipeline_options(to_pipeline_options(c.pipeline), ranks, c.model.layers);
  if (c.mode == Mode::kHybrid) validate_hybrid(c, ranks);
  const auto* spans = std::get_if<GraphSpans>(&source.what);
  const bool per_rank = std::holds_alternative<ShardDirectory>(source.what) ||
                        (spans != nullptr && !spans->row_ids.empty());
  STRATA_REQUIRE(!per_rank || c.mode == Mode::kGraph,
                 "one shard per rank (shard files or row ids) is for mode graph, not ",
                 mode_name(c.mode));
}

// Graph mode's summary, put together from every rank's shard.
GraphSummary summarize_shards(Communicator& comm, const Shard& shard) {
  std::array<double, 2> sums{static_cast<double>(shard.graph.adjacency.nnz()),
                             static_cast<double>(shard.features.nnz())};
  comm.all_reduce_sum(std::as_writable_bytes(std::span(sums)), DType::kFloat64,
                      CommCategory::kControl);
  const double cells =
      static_cast<double>(shard.global_nodes) * static_cast<double>(shard.features.cols());
  return {shard.name,
          shard.global_nodes,
          static_cast<std::int64_t>(sums[0]),
          shard.features.cols(),
          shard.features.is_sparse(),
          cells > 0 ? sums[1] / cells : 0.0,
          shard.num_classes};
}

// A pipeline or hybrid rank of a stage after the first: only stage 0 reads the features.
bool reads_no_features(const Config& c, const Communicator& comm) {
  if (c.mode == Mode::kPipeline) return comm.rank() > 0;
  return c.mode == Mode::kHybrid && comm.rank() / c.hybrid.parts > 0;
}

Dataset whole_graph(const GraphInput::Source& source) {
  if (const auto* d = std::get_if<DatasetSource>(&source.what))
    return load_dataset(d->spec, to_load_options(d->options));
  return dataset_from_spans(std::get<GraphSpans>(source.what));
}

Shard graph_mode_shard(Communicator& comm, const Config& c, const GraphInput::Source& source) {
  Shard shard;
  if (const auto* dir = std::get_if<ShardDirectory>(&source.what)) {
    run_agreed(comm, [&] { shard = read_shard(dir->dir, comm.rank(), comm.size()); });
    return shard;
  }
  const auto* spans = std::get_if<GraphSpans>(&source.what);
  if (spans != nullptr && !spans->row_ids.empty()) {
    ShardRows rows;
    run_agreed(comm, [&] { rows = shard_rows_from_spans(*spans); });
    return assemble_shard(comm, std::move(rows));
  }
  std::vector<std::vector<std::byte>> prepared;
  run_agreed(comm, [&] {
    if (comm.rank() != 0) return;
    const Dataset data = whole_graph(source);
    prepared =
        prepare_shards(data, to_partition_options(c.partition, comm.size(), c.seed), comm.size());
  });
  return exchange_shards(comm, std::move(prepared));
}

}  // namespace

void load_trainer_state(Communicator& comm, const Config& config, const GraphInput& graph,
                        Trainer::State& state) {
  state.baseline_bytes = current_resident_bytes();
  run_agreed(comm, [&] { validate(config, graph.source(), comm.size()); });
  const TrainConfig train = to_train_config(config);
  if (config.mode == Mode::kGraph) {
    state.shard = graph_mode_shard(comm, config, graph.source());
    order_interior_first(state.shard);  // so that training reads its features in place
    state.summary = summarize_shards(comm, state.shard);
  } else {
    run_agreed(comm, [&] { state.data = whole_graph(graph.source()); });
    state.summary = summarize(state.data);
    if (config.mode == Mode::kHybrid)
      state.part_of = hybrid_partition(
          state.data, to_partition_options(config.partition, config.hybrid.parts, config.seed));
    if (reads_no_features(config, comm))
      state.data.features = state.data.features.without_values();
    else if (config.mode == Mode::kHybrid && config.hybrid.parts > 1)  // its part's rows only
      state.data.features = state.data.features.keeping_rows(
          vertices_of_part(state.part_of, comm.rank() % config.hybrid.parts));
  }
  state.model = model_config_for(state.summary.features, state.summary.classes, train);
}

}  // namespace strata
