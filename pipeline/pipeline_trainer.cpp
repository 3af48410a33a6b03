#include "strata/pipeline/pipeline_trainer.h"

#include <numeric>

#include "strata/core/timer.h"
#include "strata/kernels/kernels.h"
#include "strata/partition/chunks.h"
#include "strata/pipeline/comm_model.h"
#include "strata/pipeline/pipeline_schedule.h"
#include "strata/pipeline/rank_metrics.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
void validate_pipeline_options(const PipelineOptions& o, int stages, int layers) {
  STRATA_REQUIRE(o.chunks >= 1, "--chunks must be at least 1, got ", o.chunks);
  STRATA_REQUIRE(o.stale_grad == "drop" || o.stale_grad == "delay",
                 "--stale-grad must be drop or delay, got '", o.stale_grad, "'");
  STRATA_REQUIRE(o.smoothing >= 0.0f && o.smoothing < 1.0f, "--smoothing must be in [0, 1), got ",
                 o.smoothing);
  STRATA_REQUIRE(o.warmup_epochs >= 0, "--warmup must not be negative, got ", o.warmup_epochs);
  STRATA_REQUIRE(stages <= layers, "pipeline mode with ", stages, " stages needs at least ", stages,
                 " layers, the model has ", layers);
  parse_partition_method(o.chunking);
}

StageBounds pipeline_stage_bounds(const Dataset& d, const TrainConfig& c, const PipelineOptions& o,
                                  int stages) {
  if (!o.layer_split.empty()) {
    StageBounds b = parse_layer_split(o.layer_split, c.layers);
    STRATA_REQUIRE(static_cast<int>(b.size()) == stages + 1, "--layer-split names ", b.size() - 1,
                   " stages, the job has ", stages, " ranks");
    return b;
  }
  const ModelShape shape = model_shape_of(d, parse_model_kind(c.model), c.hidden, c.layers);
  return split_layers_by_cost(shape.costs, stages);
}

MemoryEstimate estimate_pipeline_rank(const Dataset& data, const TrainConfig& config,
                                      const PipelineOptions& options, int stages, int stage) {
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, stages);
  return estimate_pipeline_memory(data,
                                  model_config_for(data.features.cols(), data.num_classes, config),
                                  bounds, stage, options.chunks);
}

MemoryEstimate estimate_hybrid_rank(const Dataset& data, const TrainConfig& config,
                                    const PipelineOptions& options,
                                    std::span<const std::int32_t> part_of, int parts, int stages,
                                    int rank) {
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, stages);
  const ModelConfig model = model_config_for(data.features.cols(), data.num_classes, config);
  PartSizes part{data.adjacency.rows, 0, data.adjacency.nnz() + data.adjacency.rows};
  if (parts > 1) part = measure_part(data.adjacency, part_of, rank % parts);
  return estimate_hybrid_memory(data, model, bounds, rank / parts, options.chunks, part);
}

RunKey pipeline_run_key(const char* mode, int ranks, const Dataset& d, const TrainConfig& c,
                        const PipelineOptions& o, const StageBounds& bounds) {
  RunKey key =
      base_run_key(mode, ranks, c, d.name, d.adjacency.rows, d.features.cols(), d.num_classes);
  std::string split;
  for (int b : bounds) split += cat(split.empty() ? "" : ",", b);
  key.insert(key.end(), {{"stage_bounds", split},
                         {"chunks", cat(o.chunks)},
                         {"chunking", o.chunking},
                         {"stale_grad", o.stale_grad},
                         {"warmup", cat(o.warmup_epochs)},
                         {"alternate_order", cat(o.alternate_order)},
                         {"smoothing", cat(o.smoothing)}});
  return key;
}

ChunkLayout pipeline_chunk_layout(const Dataset& data, const TrainConfig& config,
                                  const PipelineOptions& options) {
  const auto chunk_of = make_chunks(data.adjacency, options.chunks,
                                    parse_partition_method(options.chunking), config.seed);
  return make_chunk_layout(data.adjacency, chunk_of, options.chunks);
}

TrainResult train_pipeline(Communicator& comm, const Dataset& data, const TrainConfig& config,
                           const PipelineOptions& options, const EpochCallback& on_epoch) {
  validate_train_config(config);
  validate_pipeline_options(options, comm.size(), config.layers);
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, comm.size());
  PipelineSchedule schedule(comm, data, config, options, bounds,
                            pipeline_chunk_layout(data, config, options));
  return run_training(comm, config,
                      pipeline_run_key("pipeline", comm.size(), data, config, options, bounds),
                      schedule, on_epoch);
}

}  // namespace strata
