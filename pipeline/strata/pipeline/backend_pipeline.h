// Modes pipeline and hybrid on a kernels::Backend (the GPU, or the CPU backend that tests
// the same code): train_pipeline and train_hybrid with BackendPipelineSchedule in place of
// PipelineSchedule. Setup, checks and the run key (plus the device) are theirs.
#pragma once
#include <functional>
#include <memory>
#include <span>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/kernels/backend.h"
#include "strata/partition/partitioner.h"
#include "strata/pipeline/train_config.h"

namespace strata {

// Makes the communicator over the backend's memory that shadows a host communicator
// (the same ranks): NCCL or device staging on a GPU. nullptr: use the host one itself
// (the CPU backend, or a communicator of one rank).
using DataCommunicator = std::function<std::unique_ptr<Communicator>(Communicator& host)>;

// Collective; as train_pipeline (pipeline_trainer.h).
TrainResult train_pipeline_on_backend(Communicator& comm, const kernels::Backend& backend,
                                      const DataCommunicator& to_data, const Dataset& data,
                                      const TrainConfig& config, const PipelineOptions& options,
                                      const EpochCallback& on_epoch);

// Collective; as train_hybrid with the partition given.
TrainResult train_hybrid_on_backend(Communicator& comm, const kernels::Backend& backend,
                                    const DataCommunicator& to_data, const Dataset& data,
                                    const TrainConfig& config, const PipelineOptions& options,
                                    const PartitionOptions& partition,
                                    std::span<const std::int32_t> part_of,
                                    const EpochCallback& on_epoch);

}  // namespace strata
