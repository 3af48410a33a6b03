#include "strata/partition/chunks.h"
#include "strata/pipeline/hybrid_layout.h"
#include "strata/pipeline/pipeline_schedule.h"
#include "strata/pipeline/pipeline_trainer.h"
#include "strata/pipeline/stage_halo.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
namespace {

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

}  // namespace

std::vector<std::int32_t> hybrid_partition(const Dataset& data, const PartitionOptions& partition) {
  if (partition.parts == 1) return std::vector<std::int32_t>(data.adjacency.rows, 0);
  return partition_graph(data.adjacency, partition);
}

TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         const EpochCallback& on_epoch) {
  validate_train_config(config);
  hybrid_stages(comm, partition.parts, config.layers);
  return train_hybrid(comm, data, config, options, partition, hybrid_partition(data, partition),
                      on_epoch);
}

HybridJob make_hybrid_job(Communicator& comm, const Dataset& data, const TrainConfig& config,
                          const PipelineOptions& options, const PartitionOptions& partition,
                          std::span<const std::int32_t> part_of) {
  validate_train_config(config);
  HybridJob job;
  job.parts = partition.parts;
  const int stages = hybrid_stages(comm, job.parts, config.layers);
  validate_pipeline_options(options, stages, config.layers);
  STRATA_REQUIRE(part_of.size() == static_cast<std::size_t>(data.adjacency.rows),
                 "hybrid mode: ", part_of.size(), " part ids for ", data.adjacency.rows,
                 " vertices");
  const int stage = comm.rank() / job.parts, part = comm.rank() % job.parts;
  job.pipe = comm.split(part, stage);
  job.group = comm.split(stage, part);
  job.bounds = pipeline_stage_bounds(data, config, options, stages);
  const auto chunk_of = make_chunks(data.adjacency, options.chunks,
                                    parse_partition_method(options.chunking), config.seed);
  job.layout = make_hybrid_layout(data.adjacency, part_of, part, chunk_of, options.chunks);
  job.key = pipeline_run_key("hybrid", comm.size(), data, config, options, job.bounds);
  job.key.emplace_back("parts", cat(job.parts));
  job.key.emplace_back("partitioner", cat(static_cast<int>(partition.method)));
  return job;
}

TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         std::span<const std::int32_t> part_of, const EpochCallback& on_epoch) {
  HybridJob job = make_hybrid_job(comm, data, config, options, partition, part_of);
  StageHalo halo(job.layout, *job.group);
  PipelineSchedule schedule(comm, data, config, options, job.bounds, std::move(job.layout.layout),
                            {job.pipe.get(), job.group.get(), job.parts > 1 ? &halo : nullptr});
  return run_training(comm, config, std::move(job.key), schedule, on_epoch);
}

}  // namespace strata
