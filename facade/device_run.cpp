#include "device_run.h"

#include "conversions.h"
#include "strata/comm/device_staging_communicator.h"
#include "strata/comm/nccl_communicator.h"
#include "strata/core/device.h"
#include "strata/kernels/backend.h"
#include "strata/pipeline/backend_pipeline.h"
#include "strata/pipeline/backend_trainer.h"

namespace strata {

bool on_gpu(const Config& c) {
  return c.device.kind == "cuda";
}

void validate_device(const Config& c) {
  STRATA_REQUIRE(c.device.kind == "cpu" || c.device.kind == "cuda",
                 "--device must be cpu or cuda, not '", c.device.kind, "'");
  STRATA_REQUIRE(c.device.comm == "mpi" || c.device.comm == "nccl",
                 "--comm must be mpi or nccl, not '", c.device.comm, "'");
  STRATA_REQUIRE(c.device.spmm == "deterministic" || c.device.spmm == "fastest",
                 "--spmm must be deterministic or fastest, not '", c.device.spmm, "'");
  STRATA_REQUIRE(c.device.comm == "mpi" || on_gpu(c),
                 "--comm nccl moves GPU tensors; it needs --device cuda");
  if (!on_gpu(c)) return;
  STRATA_REQUIRE(gpu::built_with_cuda(), "--device cuda: this strata was built without CUDA");
  STRATA_REQUIRE(gpu::available(), "--device cuda: no CUDA device answers on this machine");
}

namespace {

// The communicator over device memory that shadows a host one: NCCL, or MPI staged
// through pinned memory. One rank moves nothing, so it keeps the host communicator.
DataCommunicator device_communicators(const Config& c, const gpu::Context& context) {
  return [&c, &context](Communicator& host) -> std::unique_ptr<Communicator> {
    if (host.size() == 1) return nullptr;
    if (c.device.comm == "nccl") return std::make_unique<NcclCommunicator>(host, context);
    return std::make_unique<DeviceStagingCommunicator>(host.split(0, host.rank()), context);
  };
}

}  // namespace

TrainResult train_on_gpu(Communicator& comm, const Config& config, const Trainer::State& state,
                         const TrainConfig& train, const EpochCallback& on_epoch) {
  const gpu::Context context(comm.rank() % gpu::device_count());
  const std::unique_ptr<kernels::Backend> backend =
      kernels::make_cuda_backend(context, config.device.spmm == "deterministic");
  const DataCommunicator to_data = device_communicators(config, context);
  const PipelineOptions options = to_pipeline_options(config.pipeline);
  if (config.mode == Mode::kPipeline)
    return train_pipeline_on_backend(comm, *backend, to_data, state.data, train, options, on_epoch);
  if (config.mode == Mode::kHybrid) {
    const int parts = config.hybrid.parts;
    return train_hybrid_on_backend(comm, *backend, to_data, state.data, train, options,
                                   to_partition_options(config.partition, parts, config.seed),
                                   state.part_of, on_epoch);
  }
  const std::unique_ptr<Communicator> device = to_data(comm);
  Communicator& data = device ? *device : comm;
  if (config.mode == Mode::kGraph)
    return train_on_backend(comm, data, *backend, state.shard, train, "graph", on_epoch);
  const std::vector<std::int32_t> one_part(static_cast<std::size_t>(state.data.adjacency.rows), 0);
  const Shard whole = make_shard(state.data, one_part, 1, 0);
  return train_on_backend(comm, data, *backend, whole, train, "local", on_epoch);
}

}  // namespace strata
