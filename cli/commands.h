// Subcommands of the `strata` binary. Argument parsing lives in main.cpp; each command
// takes plain option structs and returns the process exit status.
#pragma once
#include <string>

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
};

struct ConvertArgs {
  DatasetArgs data;
  std::string out;
};

int run_train(const TrainArgs& args);
int run_info(const DatasetArgs& args);
int run_convert(const ConvertArgs& args);

}  // namespace strata::cli
