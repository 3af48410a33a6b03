// `strata plan`: its options and the command.
#pragma once
#include <CLI/CLI.hpp>

#include "commands.h"

namespace strata::cli {

struct PlanArgs {
  DatasetArgs data;
  PlanRequest request;
  std::string link = "10Gbit", host_link, latency = "50us", memory_per_rank;
  std::string probe_network;  // under mpirun: measure the network into FILE, plan nothing
  std::string network;        // the measured network: overrides --link and --latency
  int top = 15;               // layouts printed (all with --json)
  bool json = false;
  bool recalibrate = false;  // measure the kernel rates again, into the cache
  bool simulate = false;     // plan for the graph --nodes ... describe, without making it
  DescribedGraph described;
};

// --dataset and the options that shape the data (main.cpp).
void add_dataset_options(CLI::App* cmd, DatasetArgs& d);

CLI::App* add_plan_command(CLI::App& app, PlanArgs& args);
int run_plan(const PlanArgs& args);

}  // namespace strata::cli
