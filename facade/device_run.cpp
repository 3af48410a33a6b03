#include "device_run.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>

#include "conversions.h"
#include "epoch_profiler.h"
#include "roofline.h"
#include "strata/comm/device_staging_communicator.h"
#include "strata/comm/nccl_communicator.h"
#include "strata/core/device.h"
#include "strata/kernels/backend.h"
#include "strata/training/modes.h"

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
  STRATA_REQUIRE(c.memory.adjacency == "values" || !on_gpu(c),
                 "--adjacency degrees is for --device cpu: cuSPARSE multiplies stored values");
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

// Collective. NCCL refuses two ranks of one communicator on one GPU (with a message that
// names neither the flag nor the cure), so say it first: every rank hashes its host name
// and GPU, and a repeated hash names two ranks that share a GPU.
void check_one_rank_per_gpu(Communicator& comm, int device) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  const std::uint64_t mine = std::hash<std::string>{}(cat(host.data(), ":", device));
  std::vector<std::uint64_t> all(static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)),
                  CommCategory::kControl);
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = a + 1; b < all.size(); ++b)
      STRATA_REQUIRE(all[a] != all[b], "--comm nccl needs one GPU per rank: ranks ", a, " and ", b,
                     " share one (rank r takes GPU r % the GPUs its host sees); start fewer "
                     "ranks per host or use --comm mpi");
}

// The trainer of the config's mode on a device.
TrainResult run_mode(Communicator& comm, const Config& config, const Trainer::State& state,
                     const TrainConfig& train, const Device& device,
                     const EpochCallback& on_epoch) {
  const PipelineOptions options = to_pipeline_options(config.pipeline);
  switch (config.mode) {
    case Mode::kLocal:
      return train_one_process(state.data, train, on_epoch, device);
    case Mode::kGraph:
      return train_graph_parallel(comm, state.shard, train, on_epoch, device);
    case Mode::kPipeline:
      return train_pipeline(comm, state.data, train, options, on_epoch, device);
    case Mode::kHybrid:
      return train_hybrid(comm, state.data, train, options,
                          to_partition_options(config.partition, config.hybrid.parts, config.seed),
                          state.part_of, on_epoch, device);
  }
  STRATA_CHECK(false, "unknown mode");
  return {};
}

// run_mode, with every operation timed into `profile` where one is asked for.
TrainResult train_mode(Communicator& comm, const Config& config, const Trainer::State& state,
                       const TrainConfig& train, const Device& device,
                       const EpochCallback& on_epoch, Profile* profile) {
  if (profile == nullptr) return run_mode(comm, config, state, train, device, on_epoch);
  const Roofline roofline = roofline_for(device.backend, config.profile.roofline);
  EpochProfiler profiler(device, roofline);
  TrainResult r = run_mode(comm, config, state, train, profiler.device(), profiler.watch(on_epoch));
  *profile = profiler.report();
  return r;
}

// The GPU memory in use is read after every epoch (the tensors stay allocated between
// epochs, so this is close to the peak) and once more at the end.
TrainResult train_on_gpu(Communicator& comm, const Config& config, const Trainer::State& state,
                         const TrainConfig& train, const EpochCallback& on_epoch,
                         Profile* profile) {
  const gpu::Context context(comm.rank() % gpu::device_count());
  if (config.device.comm == "nccl" && comm.size() > 1)
    check_one_rank_per_gpu(comm, context.device());
  const std::unique_ptr<kernels::Backend> backend =
      kernels::make_cuda_backend(context, config.device.spmm == "deterministic");
  const Device device{*backend, device_communicators(config, context)};
  std::int64_t in_use = 0;
  const auto sample = [&] { in_use = std::max(in_use, gpu::bytes_in_use(context.device())); };
  const auto sampled = [&](const EpochMetrics& m) {
    sample();
    if (on_epoch) on_epoch(m);
  };
  TrainResult r = train_mode(comm, config, state, train, device, sampled, profile);
  sample();
  r.device_bytes = in_use;
  return r;
}

}  // namespace

TrainResult train_on_device(Communicator& comm, const Config& config, const Trainer::State& state,
                            const TrainConfig& train, const EpochCallback& on_epoch,
                            Profile* profile) {
  if (on_gpu(config)) return train_on_gpu(comm, config, state, train, on_epoch, profile);
  return train_mode(comm, config, state, train, cpu_device(), on_epoch, profile);
}

}  // namespace strata
