// Training in each mode: what a rank loads and lays out, then the one engine
// (rank_trainer.h) on the device's backend. Every function is collective over comm and
// gives every rank the same result; on_epoch runs on every rank with metrics reduced.
//   local:    one process, the whole graph as one block (the reference the others match)
//   graph:    rank p owns part p (a shard); halo rows are exchanged at every layer and the
//             gradient sums all-reduced. Exact: P ranks compute what one process computes.
//   pipeline: rank s runs stage s, a run of consecutive layers over every vertex (after
//             GNNPipe); chunks of vertices flow through the stages, neighbours in chunks
//             not yet computed this epoch are read from history. Exact with one chunk.
//   hybrid:   S = P / G stages of G parts; job rank r is stage r / G, part r % G. Inside a
//             stage the parts are graph-parallel; part g of each chunk flows from stage s
//             to s + 1. S = 1 computes what graph mode computes, G = 1 what pipeline mode
//             does, and one chunk is exact.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/partition/partitioner.h"
#include "strata/plan/memory_estimate.h"
#include "strata/plan/stage_split.h"
#include "strata/shards/shard.h"
#include "strata/store/checkpoint.h"
#include "strata/training/rank_grid.h"
#include "strata/training/rank_trainer.h"
#include "strata/training/row_layout.h"
#include "strata/training/train_config.h"

namespace strata {

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch, const Device& device = cpu_device());

// shard.graph.part must equal comm.rank().
TrainResult train_graph_parallel(Communicator& comm, const Shard& shard, const TrainConfig& config,
                                 const EpochCallback& on_epoch,
                                 const Device& device = cpu_device());

// Every rank passes the same dataset (only stage 0 reads the features).
TrainResult train_pipeline(Communicator& comm, const Dataset& data, const TrainConfig& config,
                           const PipelineOptions& options, const EpochCallback& on_epoch,
                           const Device& device = cpu_device());

// The trainer train_pipeline runs on grid's rank (one part), for tests that drive it. It
// reads data's dense features in place: data must outlive it.
std::unique_ptr<RankTrainer> pipeline_trainer(RankGrid& grid, const Device& device,
                                              const Dataset& data, const TrainConfig& config,
                                              const PipelineOptions& options);

// partition.parts = G divides the job's ranks. Every rank passes the same dataset.
TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         const EpochCallback& on_epoch, const Device& device = cpu_device());
// The same with the partition given: part_of = hybrid_partition(data, partition).
TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         std::span<const std::int32_t> part_of, const EpochCallback& on_epoch,
                         const Device& device = cpu_device());

// Input errors for options that cannot work with `stages` stages of `layers` layers.
void validate_pipeline_options(const PipelineOptions& options, int stages, int layers);

// The layers of each stage: options.layer_split, or balanced by the model's estimated cost.
StageBounds pipeline_stage_bounds(const Dataset& data, const TrainConfig& config,
                                  const PipelineOptions& options, int stages);

// The partition hybrid mode trains on: partition.parts parts (all zero with one).
std::vector<std::int32_t> hybrid_partition(const Dataset& data, const PartitionOptions& partition);

// What pipeline stage `stage` of `stages` will hold (memory_estimate.h), before it is
// allocated; and hybrid rank `rank` (stage rank / parts, part rank % parts) of part_of.
MemoryEstimate estimate_pipeline_rank(const Dataset& data, const TrainConfig& config,
                                      const PipelineOptions& options, int stages, int stage,
                                      DType gradient_type = DType::kFloat64);
// Mode local's one process (reading the dataset's own features), and a graph-mode rank.
MemoryEstimate estimate_local_rank(const Dataset& data, const TrainConfig& config);
MemoryEstimate estimate_graph_rank(const Shard& shard, const TrainConfig& config);
MemoryEstimate estimate_hybrid_rank(const Dataset& data, const TrainConfig& config,
                                    const PipelineOptions& options,
                                    std::span<const std::int32_t> part_of, int parts, int stages,
                                    int rank, DType gradient_type = DType::kFloat64);

}  // namespace strata
