// Subcommands of the `strata` binary. Argument parsing lives in main.cpp; each command
// takes plain option structs and returns the process exit status. The CLI sees only the
// public facade, include/strata/.
#pragma once
#include <string>
#include <vector>

#include "strata/strata.h"

namespace strata::cli {

struct DatasetArgs {
  std::string dataset = "synthetic";
  DatasetOptions load;
};

struct TrainArgs {
  DatasetArgs data;
  Config config;
  std::string metrics_path;
  std::string mode = "graph";  // local | graph | pipeline | hybrid
  std::string shards;          // graph: read DIR/part-<rank>-of-<P>.shard
  int stages = 0;  // pipeline: the rank count; hybrid: ranks / --parts (checked when given)
  std::string load_weights;  // start from these weights
  std::string save_weights;  // write the trained weights here
  int threads = 0;  // OpenMP threads per rank; 0: OMP_NUM_THREADS, else a share of the cores
};

struct ConvertArgs {
  DatasetArgs data;
  std::string out;
  std::string order = "as-loaded";  // as-loaded | rcm
};

struct PartitionArgs {
  DatasetArgs data;
  PartitionRequest request;
  bool json = false;
};

struct CommVolumeArgs {
  DatasetArgs data;
  CommVolumeRequest request;
  std::string memory_per_rank;  // "8GiB": list the stages x parts factorizations
  bool json = false;
};

int run_train(const TrainArgs& args);
int run_partition(const PartitionArgs& args);
int run_comm_volume(const CommVolumeArgs& args);
int run_info(const DatasetArgs& args);
int run_convert(const ConvertArgs& args);

// What the CLI says when an allocation fails.
inline constexpr const char* kOutOfMemory =
    "out of memory: an allocation failed (std::bad_alloc); more ranks, or a smaller model or "
    "graph, lower the memory per rank";

// An input error (exit status 2) unless cond holds.
inline void require(bool cond, const std::string& message) {
  if (!cond) throw Error(ErrorKind::kInput, message);
}

}  // namespace strata::cli
