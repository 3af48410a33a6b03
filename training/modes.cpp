#include "strata/training/modes.h"

#include <algorithm>

#include "strata/comm/in_process_communicator.h"
#include "strata/layers/model.h"
#include "strata/partition/chunks.h"
#include "strata/plan/comm_model.h"
#include "strata/training/interior_first.h"
#include "strata/training/rank_trainer.h"
#include "strata/training/schedule_common.h"
#include "strata/training/training_common.h"
#include "strata/training/training_loop.h"

namespace strata {
namespace {

ChunkPlan chunk_plan(const PipelineOptions& options, const TrainConfig& config) {
  ChunkPlan plan{options.chunks, options.stale_grad == StaleGrad::kExact, config.compress,
                 config.recompute};
  plan.storage = config.storage;
  plan.factored_adjacency = config.factored_adjacency;
  return plan;
}

Propagation propagation_of(const TrainConfig& config) {
  return model_type(config.model).propagation();
}

RankSetup setup_for(ParallelMode mode, std::int64_t features, std::int32_t classes,
                    const TrainConfig& config, const PipelineOptions& options, StageBounds bounds) {
  return {mode, model_config_for(features, classes, config), config, options, std::move(bounds)};
}

StageBounds whole_model(const TrainConfig& config) {
  return {0, config.layers};
}

// What a resumed pipeline or hybrid run must share with the run that saved.
RunKey pipeline_run_key(const char* mode, int ranks, const Dataset& d, const TrainConfig& c,
                        const PipelineOptions& o, const StageBounds& bounds) {
  RunKey key =
      base_run_key(mode, ranks, c, d.name, d.adjacency.rows, d.features.cols(), d.num_classes);
  std::string split;
  for (int b : bounds) split += cat(split.empty() ? "" : ",", b);
  key.insert(key.end(), {{"stage_bounds", split},
                         {"chunks", cat(o.chunks)},
                         {"chunking", partition_method_name(o.chunking)},
                         {"stale_grad", stale_grad_name(o.stale_grad)},
                         {"stale_weight", cat(o.stale_weight)},
                         {"warmup", cat(o.warmup_epochs)},
                         {"alternate_order", cat(o.alternate_order)},
                         {"smoothing", cat(o.smoothing)}});
  return key;
}

// A chunked stage without a halo keeps its history in bf16 with --storage bf16
// (ConvStage::stores_history), which smoothing cannot blend, and no layer's output but
// its last's, which --diagnose compares.
void check_history_storage(const TrainConfig& config, const PipelineOptions& options) {
  if (config.storage == RowCodec::kFloat32 || options.chunks == 1) return;
  STRATA_REQUIRE(options.smoothing == 0.0f,
                 "--smoothing blends fp32 history; with --storage bf16 and --chunks > 1 a ",
                 "pipeline stage keeps its history in bf16: use one of the two");
  STRATA_REQUIRE(!options.diagnose, "--diagnose reads each layer's output, which with ",
                 "--storage bf16 and --chunks > 1 a pipeline stage keeps only as the next ",
                 "layer's bf16 history: use one of the two");
}

int hybrid_stages(const Communicator& comm, int parts, int layers) {
  STRATA_REQUIRE(parts >= 1, "--parts must be at least 1, got ", parts);
  STRATA_REQUIRE(comm.size() % parts == 0, "hybrid mode with --parts ", parts,
                 " needs a multiple of ", parts, " ranks, the job has ", comm.size());
  const int stages = comm.size() / parts;
  STRATA_REQUIRE(stages <= layers, "hybrid mode with ", stages, " stages (", comm.size(),
                 " ranks / ", parts, " parts) needs at least ", stages, " layers, the model has ",
                 layers);
  return stages;
}

std::vector<std::int32_t> chunks_of(const Dataset& data, const TrainConfig& config,
                                    const PipelineOptions& options) {
  return make_chunks(data.adjacency, options.chunks, options.chunking, config.seed);
}

// Where each of ids lies among held (ascending): every one must be there.
std::vector<GlobalId> held_positions(std::span<const GlobalId> held,
                                     std::span<const GlobalId> ids) {
  std::vector<GlobalId> at;
  at.reserve(ids.size());
  for (const GlobalId id : ids) {
    const auto it = std::lower_bound(held.begin(), held.end(), id);
    STRATA_CHECK(it != held.end() && *it == id, "the features of vertex ", id,
                 " are not among the rows this rank kept");
    at.push_back(it - held.begin());
  }
  return at;
}

// The first stage's features over rows `ids` of f: f itself where those are its rows in
// order; else dense ones read where they lie through the list of ids, sparse ones selected
// into a copy. Of features that keep some rows only, those rows. f must outlive the trainer.
void first_stage_features(const FeatureMatrix& f, std::span<const GlobalId> ids, RankData& rank) {
  if (f.holds_some_rows()) {
    const std::vector<GlobalId> at = held_positions(f.held_ids(), ids);
    first_stage_features(f.held_values(), at, rank);
    return;
  }
  const bool own_order = std::ssize(ids) == f.rows() && is_identity(ids);
  if (!own_order && f.is_sparse()) {
    rank.features = std::make_shared<const FeatureMatrix>(f.select_rows(ids));
    return;
  }
  rank.features = std::shared_ptr<const FeatureMatrix>(std::shared_ptr<void>(), &f);
  if (!own_order)
    for (const GlobalId id : ids) rank.feature_rows.push_back(static_cast<LocalId>(id));
}

// The trainer of a rank that holds the whole dataset (the caller's, which outlives it):
// stage 0's features in the layout's row order, and the rank's labels.
std::unique_ptr<RankTrainer> trainer_on_dataset(RankGrid& grid, const Device& device,
                                                const Dataset& data, RowLayout layout,
                                                const RankSetup& setup) {
  RankData rank{{}, nullptr, stage_labels(data, layout.owned_ids()), {}};
  if (grid.stage() == 0) first_stage_features(data.features, layout.owned_ids(), rank);
  rank.layout = std::move(layout);
  return std::make_unique<RankTrainer>(grid, device.backend, std::move(rank), setup);
}

TrainResult run_trainer(RankGrid& grid, const Device& device, EpochTrainer& trainer,
                        const TrainConfig& config, RunKey key, const EpochCallback& on_epoch) {
  key.emplace_back("device", device.backend.name());
  return run_training(grid.job(), config, std::move(key), trainer, on_epoch);
}

TrainResult run(RankGrid& grid, const Device& device, RankData data, const RankSetup& setup,
                RunKey key, const EpochCallback& on_epoch) {
  RankTrainer trainer(grid, device.backend, std::move(data), setup);
  return run_trainer(grid, device, trainer, setup.config, std::move(key), on_epoch);
}

}  // namespace

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch, const Device& device) {
  validate_train_config(config);
  STRATA_REQUIRE(config.compress == RowCodecs{}, "--compress ",
                 row_codec_name(config.compress.forward), ",",
                 row_codec_name(config.compress.backward),
                 ": mode local sends no rows to compress; use graph, pipeline or hybrid mode");
  const std::unique_ptr<Communicator> solo = make_solo_communicator();
  RankGrid grid(*solo, 1, device.to_data);
  const std::vector<std::int32_t> one_chunk(static_cast<std::size_t>(data.adjacency.rows), 0);
  RankData rank{whole_graph_layout(data.adjacency, one_chunk, 1, propagation_of(config),
                                   config.factored_adjacency),
                nullptr,
                {},
                {}};
  rank.labels = stage_labels(data, rank.layout.owned_ids());
  first_stage_features(data.features, rank.layout.owned_ids(), rank);  // the caller's, in place
  const RankSetup setup = setup_for(ParallelMode::kLocal, data.features.cols(), data.num_classes,
                                    config, {}, whole_model(config));
  RunKey key = base_run_key("local", 1, config, data.name, data.adjacency.rows,
                            data.features.cols(), data.num_classes);
  return run(grid, device, std::move(rank), setup, std::move(key), on_epoch);
}

TrainResult train_graph_parallel(Communicator& comm, const Shard& shard, const TrainConfig& config,
                                 const EpochCallback& on_epoch, const Device& device) {
  validate_train_config(config);
  STRATA_REQUIRE(shard.parts == comm.size() && shard.graph.part == comm.rank(), "rank ",
                 comm.rank(), " of ", comm.size(), " was given part ", shard.graph.part, " of ",
                 shard.parts);
  RankGrid grid(comm, comm.size(), device.to_data);
  RowLayout layout =
      shard_layout(shard.graph, shard.parts, propagation_of(config), config.factored_adjacency);
  const std::vector<GlobalId> old_of = interior_first(layout);
  // The shard outlives the run; ordered beforehand (order_interior_first), old_of is the
  // identity and its features are read as they are.
  RankData rank{std::move(layout), nullptr, stage_labels(shard, old_of), {}};
  first_stage_features(shard.features, old_of, rank);
  const RankSetup setup = setup_for(ParallelMode::kGraph, shard.features.cols(), shard.num_classes,
                                    config, {}, whole_model(config));
  std::int64_t vertices = shard.graph.owned;
  comm.all_reduce_sum(std::as_writable_bytes(std::span(&vertices, 1)), DType::kInt64,
                      CommCategory::kControl);
  RunKey key = base_run_key("graph", comm.size(), config, shard.name, vertices,
                            shard.features.cols(), shard.num_classes);
  return run(grid, device, std::move(rank), setup, std::move(key), on_epoch);
}

std::unique_ptr<RankTrainer> pipeline_trainer(RankGrid& grid, const Device& device,
                                              const Dataset& data, const TrainConfig& config,
                                              const PipelineOptions& options) {
  validate_train_config(config);
  validate_pipeline_options(options, grid.stages(), config.layers);
  STRATA_REQUIRE(!config.recompute || options.chunks == 1, "--recompute needs --chunks 1 in ",
                 "pipeline mode (chunks read history, which is kept), got --chunks ",
                 options.chunks);
  check_history_storage(config, options);
  StageBounds bounds = pipeline_stage_bounds(data, config, options, grid.stages());
  RowLayout layout =
      whole_graph_layout(data.adjacency, chunks_of(data, config, options), options.chunks,
                         propagation_of(config), config.factored_adjacency);
  const RankSetup setup = setup_for(ParallelMode::kPipeline, data.features.cols(), data.num_classes,
                                    config, options, std::move(bounds));
  return trainer_on_dataset(grid, device, data, std::move(layout), setup);
}

TrainResult train_pipeline(Communicator& comm, const Dataset& data, const TrainConfig& config,
                           const PipelineOptions& options, const EpochCallback& on_epoch,
                           const Device& device) {
  validate_train_config(config);
  validate_pipeline_options(options, comm.size(), config.layers);
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, comm.size());
  RankGrid grid(comm, 1, device.to_data);
  const std::unique_ptr<RankTrainer> trainer =
      pipeline_trainer(grid, device, data, config, options);
  return run_trainer(grid, device, *trainer, config,
                     pipeline_run_key("pipeline", comm.size(), data, config, options, bounds),
                     on_epoch);
}

TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         const EpochCallback& on_epoch, const Device& device) {
  validate_train_config(config);
  hybrid_stages(comm, partition.parts, config.layers);
  return train_hybrid(comm, data, config, options, partition, hybrid_partition(data, partition),
                      on_epoch, device);
}

TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         std::span<const std::int32_t> part_of, const EpochCallback& on_epoch,
                         const Device& device) {
  validate_train_config(config);
  STRATA_REQUIRE(!options.diagnose, "--diagnose is for mode pipeline (one part), not hybrid");
  STRATA_REQUIRE(!config.recompute, "--recompute is for modes local, graph and pipeline with ",
                 "--chunks 1, not hybrid");
  const int parts = partition.parts;
  const int stages = hybrid_stages(comm, parts, config.layers);
  if (parts == 1) check_history_storage(config, options);  // (no halo)
  validate_pipeline_options(options, stages, config.layers);
  STRATA_REQUIRE(part_of.size() == static_cast<std::size_t>(data.adjacency.rows),
                 "hybrid mode: ", part_of.size(), " part ids for ", data.adjacency.rows,
                 " vertices");
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, stages);
  RankGrid grid(comm, parts, device.to_data);
  RowLayout layout = part_layout(data.adjacency, part_of, parts, comm.rank() % parts,
                                 chunks_of(data, config, options), options.chunks,
                                 propagation_of(config), config.factored_adjacency);
  RunKey key = pipeline_run_key("hybrid", comm.size(), data, config, options, bounds);
  key.emplace_back("parts", cat(parts));
  key.emplace_back("partitioner", partition_method_name(partition.method));
  const RankSetup setup = setup_for(ParallelMode::kHybrid, data.features.cols(), data.num_classes,
                                    config, options, bounds);
  const std::unique_ptr<RankTrainer> trainer =
      trainer_on_dataset(grid, device, data, std::move(layout), setup);
  return run_trainer(grid, device, *trainer, config, std::move(key), on_epoch);
}

void validate_pipeline_options(const PipelineOptions& o, int stages, int layers) {
  STRATA_REQUIRE(o.chunks >= 1, "--chunks must be at least 1, got ", o.chunks);
  STRATA_REQUIRE(o.smoothing >= 0.0f && o.smoothing < 1.0f, "--smoothing must be in [0, 1), got ",
                 o.smoothing);
  STRATA_REQUIRE(o.warmup_epochs >= 0, "--warmup must not be negative, got ", o.warmup_epochs);
  STRATA_REQUIRE(o.stale_weight >= 0.0f && o.stale_weight <= 1.0f,
                 "--stale-weight must be in [0, 1], got ", o.stale_weight);
  STRATA_REQUIRE(stages <= layers, "pipeline mode with ", stages, " stages needs at least ", stages,
                 " layers, the model has ", layers);
  STRATA_REQUIRE(o.chunking != PartitionMethod::kRandom,
                 "chunking needs an edge-aware method: metis, rcm or range (not random)");
}

StageBounds pipeline_stage_bounds(const Dataset& d, const TrainConfig& c, const PipelineOptions& o,
                                  int stages) {
  if (!o.layer_split.empty()) {
    StageBounds b = stage_bounds_of(o.layer_split, c.layers);
    STRATA_REQUIRE(static_cast<int>(b.size()) == stages + 1, "--layer-split names ", b.size() - 1,
                   " stages, the job has ", stages, " ranks");
    return b;
  }
  const ModelShape shape = model_shape_of(d, c.model, c.hidden, c.layers);
  return split_layers_by_cost(shape.costs, stages);
}

std::vector<std::int32_t> hybrid_partition(const Dataset& data, const PartitionOptions& partition) {
  if (partition.parts == 1) return std::vector<std::int32_t>(data.adjacency.rows, 0);
  return partition_graph(data.adjacency, partition);
}

MemoryEstimate estimate_pipeline_rank(const Dataset& data, const TrainConfig& config,
                                      const PipelineOptions& options, int stages, int stage,
                                      DType gradient_type) {
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, stages);
  return estimate_pipeline_memory(data,
                                  model_config_for(data.features.cols(), data.num_classes, config),
                                  bounds, stage, chunk_plan(options, config), gradient_type);
}

MemoryEstimate estimate_local_rank(const Dataset& data, const TrainConfig& config) {
  ChunkPlan plan = chunk_plan({}, config);
  plan.chunks = 1;
  return estimate_pipeline_memory(data,
                                  model_config_for(data.features.cols(), data.num_classes, config),
                                  whole_model(config), 0, plan);
}

MemoryEstimate estimate_graph_rank(const Shard& shard, const TrainConfig& config) {
  const LocalGraph& g = shard.graph;
  PartSizes part{g.owned, g.halo, g.adjacency.nnz() + g.owned, 0, 0};
  for (const auto& list : g.plan.send) part.sent += static_cast<std::int64_t>(list.size());
  for (LocalId c : g.adjacency.indices) part.halo_entries += c >= g.owned;
  return estimate_shard_memory(g.adjacency, shard.features, is_interior_first(shard),
                               model_config_for(shard.features.cols(), shard.num_classes, config),
                               part, chunk_plan({}, config));
}

MemoryEstimate estimate_hybrid_rank(const Dataset& data, const TrainConfig& config,
                                    const PipelineOptions& options,
                                    std::span<const std::int32_t> part_of, int parts, int stages,
                                    int rank, DType gradient_type) {
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, stages);
  const ModelConfig model = model_config_for(data.features.cols(), data.num_classes, config);
  PartSizes part{data.adjacency.rows, 0, data.adjacency.nnz() + data.adjacency.rows};
  if (parts > 1) part = measure_part(data.adjacency, part_of, rank % parts);
  return estimate_hybrid_memory(data, model, bounds, rank / parts, chunk_plan(options, config),
                                part, gradient_type);
}

}  // namespace strata
