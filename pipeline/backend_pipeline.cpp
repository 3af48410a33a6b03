#include "strata/pipeline/backend_pipeline.h"

#include "strata/pipeline/backend_schedule.h"
#include "strata/pipeline/backend_stage_halo.h"
#include "strata/pipeline/pipeline_trainer.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
namespace {

// The data communicator for host, kept in `made` when one is made.
Communicator& data_for(Communicator& host, const DataCommunicator& to_data,
                       std::unique_ptr<Communicator>& made) {
  made = to_data ? to_data(host) : nullptr;
  return made ? *made : host;
}

}  // namespace

TrainResult train_pipeline_on_backend(Communicator& comm, const kernels::Backend& backend,
                                      const DataCommunicator& to_data, const Dataset& data,
                                      const TrainConfig& config, const PipelineOptions& options,
                                      const EpochCallback& on_epoch) {
  validate_train_config(config);
  validate_pipeline_options(options, comm.size(), config.layers);
  const StageBounds bounds = pipeline_stage_bounds(data, config, options, comm.size());
  std::unique_ptr<Communicator> made;
  Communicator& pipe = data_for(comm, to_data, made);
  BackendPipelineSchedule schedule(comm, backend, data, config, options, bounds,
                                   pipeline_chunk_layout(data, config, options), {}, {&pipe});
  RunKey key = pipeline_run_key("pipeline", comm.size(), data, config, options, bounds);
  key.emplace_back("device", backend.name());
  return run_training(comm, config, std::move(key), schedule, on_epoch);
}

TrainResult train_hybrid_on_backend(Communicator& comm, const kernels::Backend& backend,
                                    const DataCommunicator& to_data, const Dataset& data,
                                    const TrainConfig& config, const PipelineOptions& options,
                                    const PartitionOptions& partition,
                                    std::span<const std::int32_t> part_of,
                                    const EpochCallback& on_epoch) {
  HybridJob job = make_hybrid_job(comm, data, config, options, partition, part_of);
  std::unique_ptr<Communicator> pipe_made, group_made;
  Communicator& pipe = data_for(*job.pipe, to_data, pipe_made);
  Communicator& group = data_for(*job.group, to_data, group_made);
  BackendStageHalo halo(job.layout, group, backend);
  BackendPipelineSchedule schedule(
      comm, backend, data, config, options, job.bounds, std::move(job.layout.layout),
      {job.pipe.get(), job.group.get(), nullptr}, {&pipe, &group, job.parts > 1 ? &halo : nullptr});
  job.key.emplace_back("device", backend.name());
  return run_training(comm, config, std::move(job.key), schedule, on_epoch);
}

}  // namespace strata
