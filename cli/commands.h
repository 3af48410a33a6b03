// Subcommands of the `strata` binary. Argument parsing lives in main.cpp; each command
// takes plain option structs and returns the process exit status.
#pragma once
#include <string>
#include <vector>

#include "strata/strata.h"

namespace strata::cli {

struct DatasetArgs {
  std::string dataset = "synthetic";
  LoadOptions load;
};

struct TrainArgs {
  DatasetArgs data;
  TrainConfig train;
  std::string metrics_path;
  std::string mode = "graph";  // local | graph | pipeline
  std::string shards;          // graph: read DIR/part-<rank>-of-<P>.shard
  PartitionOptions partition;  // graph without shards: how rank 0 partitions
  PipelineOptions pipeline;
  int stages = 0;  // pipeline: must equal the rank count when given
};

struct ConvertArgs {
  DatasetArgs data;
  std::string out;
};

struct PartitionArgs {
  DatasetArgs data;
  PartitionOptions options{.method = PartitionMethod::kMetis, .parts = 4};
  std::string in;      // read this gpmetis-format file instead of partitioning
  std::string out;     // write the partition in gpmetis format
  std::string shards;  // write one shard per part into this directory
  int chunks = 0;      // also report a pipeline chunking of the whole graph
  PartitionMethod chunking = PartitionMethod::kMetis;
  bool json = false;
};

struct CommVolumeArgs {
  DatasetArgs data;
  int parts = 4;  // ranks: graph mode uses `parts` parts, hybrid S x (parts / S)
  std::vector<int> layers{2};
  int hidden = 256;
  std::string model = "gcn";
  int stages = 0;  // 0: pipeline uses min(parts, layers) stages
  std::vector<std::string> methods{"metis"};
  PartitionOptions partition;
  bool json = false;
};

int run_train(const TrainArgs& args);
int run_partition(const PartitionArgs& args);
int run_comm_volume(const CommVolumeArgs& args);
int run_info(const DatasetArgs& args);
int run_convert(const ConvertArgs& args);

}  // namespace strata::cli
