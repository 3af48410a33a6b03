// The public plain structs, translated to and from the modules' own.
#pragma once
#include "strata/config.h"
#include "strata/datasets/dataset.h"
#include "strata/graph.h"
#include "strata/partition/partitioner.h"
#include "strata/training/train_config.h"
#include "strata/result.h"

namespace strata {

LoadOptions to_load_options(const DatasetOptions& options);
// Names and strings become the engine's enums here: an unknown one is an input error
// naming its flag.
TrainConfig to_train_config(const Config& config);
PipelineOptions to_pipeline_options(const Config::Pipeline& pipeline);
ParallelMode to_parallel_mode(Mode mode);
// The type a device's backend sums weight gradients in: "cpu" double, "cuda" float.
DType gradient_type_on(const std::string& device);
PartitionOptions to_partition_options(const Config::Partition& partition, int parts,
                                      std::uint64_t seed);
EpochRecord to_record(const EpochMetrics& m);
GraphSummary summarize(const Dataset& data);

}  // namespace strata
