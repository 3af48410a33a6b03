// Layer-level pipeline training (mode `pipeline`, after GNNPipe): rank s runs stage s, a
// run of consecutive layers over the whole graph. Chunks of vertices flow through the
// stages; a chunk's neighbours in chunks not yet computed this epoch are read from the
// last pass (historical embeddings). With one chunk the mode is exact.
#pragma once
#include <memory>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/partition/partitioner.h"
#include "strata/pipeline/checkpoint.h"
#include "strata/pipeline/chunk_layout.h"
#include "strata/pipeline/hybrid_layout.h"
#include "strata/pipeline/memory_estimate.h"
#include "strata/pipeline/stage_split.h"
#include "strata/pipeline/train_config.h"

namespace strata {

// Input errors for options that cannot work with `stages` ranks and `layers` layers.
void validate_pipeline_options(const PipelineOptions& options, int stages, int layers);

// The layers of each stage: --layer-split, or balanced by the model's estimated cost.
StageBounds pipeline_stage_bounds(const Dataset& data, const TrainConfig& config,
                                  const PipelineOptions& options, int stages);

// What stage `stage` of `stages` will hold (memory_estimate.h), before it is allocated.
MemoryEstimate estimate_pipeline_rank(const Dataset& data, const TrainConfig& config,
                                      const PipelineOptions& options, int stages, int stage);

// What hybrid rank `rank` (stage rank / parts, part rank % parts) of stages x parts will
// hold; part_of is the partition train_hybrid makes (empty with one part).
MemoryEstimate estimate_hybrid_rank(const Dataset& data, const TrainConfig& config,
                                    const PipelineOptions& options,
                                    std::span<const std::int32_t> part_of, int parts, int stages,
                                    int rank);

// Collective over comm (one stage per rank). Every rank passes the same dataset (only
// stage 0 reads the features, only the last stage the labels). Every rank gets the same
// result; on_epoch runs on every rank with metrics already reduced.
TrainResult train_pipeline(Communicator& comm, const Dataset& data, const TrainConfig& config,
                           const PipelineOptions& options, const EpochCallback& on_epoch);

// The chunk layout pipeline mode trains over: every vertex, options.chunks chunks.
ChunkLayout pipeline_chunk_layout(const Dataset& data, const TrainConfig& config,
                                  const PipelineOptions& options);

// What a resumed pipeline or hybrid run must share with the run that saved.
RunKey pipeline_run_key(const char* mode, int ranks, const Dataset& data, const TrainConfig& config,
                        const PipelineOptions& options, const StageBounds& bounds);

// Mode `hybrid`: the job's P ranks form S = P / G stages of G = partition.parts ranks each;
// job rank r is stage r / G, part r % G. Inside a stage the G ranks are graph-parallel
// (halo exchange per layer and chunk, gradient all-reduce); between stages, part g of each
// chunk flows from (s, g) to (s + 1, g). S = 1 computes what graph mode computes, G = 1
// what pipeline mode computes, and one chunk is exact. Collective; every rank passes the
// same dataset and gets the same result.
TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         const EpochCallback& on_epoch);
// The same with the partition given: part_of = hybrid_partition(data, partition).
TrainResult train_hybrid(Communicator& comm, const Dataset& data, const TrainConfig& config,
                         const PipelineOptions& options, const PartitionOptions& partition,
                         std::span<const std::int32_t> part_of, const EpochCallback& on_epoch);
// One rank's share of a hybrid job, checked and laid out: its pipe (this part's column of
// stages) and group (this stage's parts), the stage bounds, its part's layout, the run key.
struct HybridJob {
  int parts = 1;
  std::unique_ptr<Communicator> pipe, group;
  StageBounds bounds;
  HybridLayout layout;
  RunKey key;
};
// Collective (the splits); input errors for settings that cannot work with the job.
HybridJob make_hybrid_job(Communicator& comm, const Dataset& data, const TrainConfig& config,
                          const PipelineOptions& options, const PartitionOptions& partition,
                          std::span<const std::int32_t> part_of);

// The partition hybrid mode trains on: partition.parts parts (all zero with one).
std::vector<std::int32_t> hybrid_partition(const Dataset& data, const PartitionOptions& partition);

}  // namespace strata
