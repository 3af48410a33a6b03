// The public plain structs, translated to and from the modules' own.
#pragma once
#include "strata/config.h"
#include "strata/datasets/dataset.h"
#include "strata/graph.h"
#include "strata/partition/partitioner.h"
#include "strata/result.h"
#include "strata/training/train_config.h"

namespace strata {

LoadOptions to_load_options(const DatasetOptions& options);
// Names and strings become the engine's enums here: an unknown one is an input error
// naming its flag.
TrainConfig to_train_config(const Config& config);
PipelineOptions to_pipeline_options(const Config::Pipeline& pipeline);
RowCodecs to_row_codecs(const Config::Compress& compress);
// --storage: "fp32" (kFloat32) or "bf16" (kBf16).
RowCodec parse_storage(std::string_view name);
// "values" or "degrees" (Config::Memory::adjacency): whether GCN's Â is factored.
bool parse_adjacency_values(std::string_view name);
ParallelMode to_parallel_mode(Mode mode);
// The type a device's backend sums weight gradients in: "cpu" double, "cuda" float.
DType gradient_type_on(const std::string& device);
PartitionOptions to_partition_options(const Config::Partition& partition, int parts,
                                      std::uint64_t seed);
EpochRecord to_record(const EpochMetrics& m);
// EpochRecord::comm_format: each byte category's format.
std::map<std::string, std::string> comm_formats(RowCodecs rows, DType gradient_type);
GraphSummary summarize(const Dataset& data);

}  // namespace strata
