// `strata plan`: every layout of a job's ranks (mode, stages x parts, chunks, row format),
// ranked by predicted epoch time, with its memory per rank and its accuracy risk.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "strata/config.h"
#include "strata/graph.h"
#include "strata/result.h"
#include "strata/workers.h"

namespace strata {

/// An all-reduce rate of groups of `ranks` ranks (bytes per second per rank, as a ring).
struct GroupRate {
  int ranks = 0;
  double bytes_per_s = 0;
};

/// The network between a job's hosts as measured by `probe_network` on it.
struct NetworkFacts {
  double link_bytes_per_s = 0;       ///< each rank to the next while receiving from the last
  double latency_s = 0;              ///< half of a small message's round trip
  double allreduce_bytes_per_s = 0;  ///< a ring's 2 (P - 1) / P n bytes per rank over the time
  int ranks = 0;                     ///< of the probe
  /// The same rate while groups of `ranks` consecutive ranks all-reduce at once, as a
  /// hybrid layout's stages do, for each group size that divides the probe's ranks.
  std::vector<GroupRate> group_allreduce{};
};

/// Where the ranks run and how they are linked.
struct ClusterSpec {
  int ranks = 2;
  int ranks_per_host = 1;            ///< ranks of a host talk over the host link
  double link_bytes_per_s = 1.25e9;  ///< each host's network link, each direction
  double link_latency_s = 50e-6;     ///< per message
  double host_link_bytes_per_s = 0;  ///< between ranks of a host (0: as the network)
  /// What an all-reduce between hosts reaches per rank (0: the link's rate, as a ring).
  double allreduce_bytes_per_s = 0;
  std::vector<GroupRate> group_allreduce{};  ///< by group size, where measured
  std::string device = "cpu";                ///< cpu | cuda
  int threads = 1;                           ///< per rank (cpu)
  /// > 0: every rank runs on one machine of this many cores (an emulated cluster), so
  /// ranks x threads beyond it share them.
  int shared_cores = 0;
};

/// Seconds per unit of work on one rank, measured or assumed (and where they came from).
struct KernelRateSet {
  double sparse_s = 0;         ///< per stored entry x column of a product with Â
  double features_s = 0;       ///< per stored feature nonzero x column
  double features_grad_s = 0;  ///< the same of the first weight's gradient
  double dense_s = 0;          ///< per multiply-add of a dense product
  double weight_grad_s = 0;    ///< per multiply-add of a weight gradient
  double stream_s = 0;         ///< per float of an elementwise pass
  double dropout_s = 0;        ///< per value dropout masks
  /// Per value of a listed row encoded and decoded for the wire: float32, bf16, int8.
  double pack_float32_s = 0, pack_bf16_s = 0, pack_int8_s = 0;
  /// CPU time per byte a rank sends or receives through the host's network stack (TCP).
  double wire_byte_s = 0;
  std::string source;  ///< "measured", "FILE", "assumed: H100-class"
};

/// Every rate of `rates` by its name ("sparse_s", ...), as calibration files and
/// `strata plan --json` name them.
std::vector<std::pair<std::string, double>> named_rates(const KernelRateSet& rates);

/// A graph described, not loaded: the planner predicts for a graph this machine cannot
/// hold (a simulated cluster). Its partition is an assumption, not a measurement.
struct DescribedGraph {
  std::int64_t nodes = 0;  ///< 0: plan for the loaded dataset instead
  double avg_degree = 20;  ///< directed edges per vertex
  int features = 128, classes = 16;
  double feature_density = 1.0;  ///< nonzero fraction of the features (below 0.25: sparse)
  /// Fraction of a vertex's edges that leave its part (or its chunk), whatever the number of
  /// parts; their far ends are taken uniformly from the other parts' vertices.
  double cut_fraction = 0.2;
};

struct PlanRequest {
  ClusterSpec cluster;
  DescribedGraph described;   ///< nodes > 0: plan for this graph, not for the dataset
  std::string model = "gcn";  ///< gcn | gcnii | sage | gin
  int layers = 2;
  int hidden = 64;
  int stages = 0;                       ///< > 0: only layouts of this many stages
  std::vector<int> chunks{1, 2, 4, 8};  ///< pipeline chunks to consider
  std::vector<std::string> compress{"none", "bf16", "int8"};  ///< row formats to consider
  /// What the chosen layout may trade for time: "stale" (chunked pipelines read history),
  /// "drop" (--stale-grad drop), "lossy" (compressed rows). Ranked either way.
  std::vector<std::string> allow{"stale", "lossy"};
  /// Allowed layouts predicted within this fraction of the fastest one count as tied with
  /// it: of those the one with the least staleness (no stale reads or dropped gradients,
  /// else the fewest stale reads) is chosen, since the model cannot tell them apart.
  double tie_margin = 0.05;
  std::int64_t memory_per_rank = 0;  ///< bytes; 0: no limit
  std::string calibration;           ///< rates file: read if it exists, else measured into it
  /// The file is a cache: one that cannot be read (older, other keys) is measured again.
  bool calibration_is_cache = false;
  Config::Partition partition;
  std::uint64_t seed = 0;
};

struct PlanLayout {
  std::string mode;  ///< graph | pipeline | hybrid
  int stages = 1, parts = 1, chunks = 1;
  std::string stale_grad = "exact";  ///< exact | drop
  std::string compress = "none";
  double epoch_s = 0;      ///< predicted, in the steady state
  double compute_s = 0;    ///< the busiest rank's own work (the rest of its epoch it waits)
  std::int64_t bytes = 0;  ///< training bytes per epoch, summed over ranks
  std::int64_t memory_per_rank = 0;  ///< the largest rank's estimate
  bool fits = true;
  double stale_reads = 0;  ///< fraction of neighbour reads taken from history
  std::string risk;        ///< "none", or what the layout trades: "stale 12%", "drop", "int8"
  bool allowed = true;     ///< its risks are all in PlanRequest::allow
  std::string command;     ///< the `strata train` options that run it
};

struct PlanReport {
  GraphSummary graph;
  KernelRateSet rates;
  std::vector<PlanLayout> layouts;  ///< fastest first
  int best = -1;                    ///< the fastest that fits and is allowed
};

/// Measures the network between the job's ranks (collective: every rank calls it; at least
/// 2 ranks, one per host to measure the network): rank r streams to r + 1 while
/// receiving from r - 1, ranks 0 and 1 ping-pong small messages, and all ranks all-reduce
/// 4 MiB of doubles; the best of a few trials each.
NetworkFacts probe_network(Workers& workers);
/// "link_bytes_per_s 1.2e9" lines; an input error naming FILE and the line otherwise.
void write_network(const std::string& path, const NetworkFacts& facts);
NetworkFacts read_network(const std::string& path);

/// An input error (exit 2) naming what cannot be met: a bad flag, more stages than layers,
/// no layout within the memory.
PlanReport plan_layouts(const std::string& spec, const DatasetOptions& options,
                        const PlanRequest& request);

}  // namespace strata
