// The predicted time of one training epoch of a layout (`strata plan`): each rank's
// compute from its rows and the machine's kernel rates, each transfer from its bytes and
// the link, put together the way the engine schedules them (DESIGN.md, "The parallel
// modes"): halo exchanges overlapping the interior rows, chunks flowing through the
// stages, the exact backward running stage after stage, the evaluation pass, the update.
#pragma once
#include <array>
#include <utility>
#include <vector>

#include "strata/plan/comm_model.h"
#include "strata/plan/layer_work.h"
#include "strata/plan/stage_split.h"

namespace strata {

// Seconds per unit of Work on one rank (its threads included), and what a rank's CPU
// spends on each row it sends or receives: packing per value (encode and decode, by
// RowCodec) and the network stack per byte (0 where the transfer costs no host CPU).
struct KernelRates {
  double sparse_s = 0, features_s = 0, features_grad_s = 0, dense_s = 0, weight_grad_s = 0;
  double stream_s = 0, dropout_s = 0;
  std::array<double, 3> pack_s{};
  double wire_byte_s = 0;
};

// Every host's network link, each direction, and the faster one between its ranks.
struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;         // per message
  double host_bytes_per_s = 0;  // 0: as the network
  int ranks_per_host = 1;       // consecutive ranks share a host
  // What a ring all-reduce across hosts reaches per rank, measured (0: bytes_per_s).
  double allreduce_bytes_per_s = 0;
  // The same while groups of `first` consecutive ranks each all-reduce at once, where
  // measured.
  std::vector<std::pair<int, double>> group_allreduce{};
  // The rate of groups of `ranks` (0: not measured).
  double allreduce_rate(int ranks) const;
  // Seconds to move `bytes` of which the fraction `across` leaves the host (both parts at
  // once, each on its own link).
  double seconds(double bytes, double across) const;
};

// One part of a G-way partition as a rank holds it (the whole graph when G = 1).
struct PartLoad {
  RowWork work;
  double interior = 0;        // fraction of its rows that read no halo row and are not sent
  double sent = 0, halo = 0;  // rows it sends and receives per halo exchange
};

// S x G ranks; `bounds` as split_layers_by_cost gives them (S + 1 entries).
struct TimedLayout {
  StageBounds bounds;
  std::vector<PartLoad> parts;
  int chunks = 1;
  bool overlap = true;  // graph mode's interior overlap (a one-chunk layout's)
  bool drop = false;    // --stale-grad drop: backward chunk by chunk, like the forward
  WireFormat wire;
  int stages() const { return static_cast<int>(bounds.size()) - 1; }
};

struct EpochTime {
  double epoch = 0;    // seconds, in the steady state
  double compute = 0;  // the busiest rank's own work: the rest of its epoch is waiting
};

// Ranks that share one machine's cores (an emulated cluster): while B of its R ranks
// compute in step and O more use the share u of their time, each runs
// max(1, (B + O max(u, w) + w (R - B - O)) x threads / cores) times slower than the rates
// say, where w is the share of a core a rank waiting in MPI takes (it polls). A pipeline
// keeps min(stages, chunks) stages busy: a stage's parts in step, the other stages for
// the share of the cycle they are not waiting on the network; the stage-by-stage passes
// keep one busy. cores 0: every rank has its own.
struct CoreSharing {
  int cores = 0, threads = 1, ranks = 1;
  // Fitted on this machine: 2 x 2 hybrid against graph mode, 4 ranks on 2 cores, no network.
  static constexpr double kWaitingShare = 0.2;
  double slowdown(int busy_ranks, int others = 0, double cpu_share = 1.0) const;
};

EpochTime predict_epoch_time(const ModelConfig& model, const ModelShape& shape,
                             const TimedLayout& layout, const KernelRates& rates, const Link& link,
                             CoreSharing sharing = {});

}  // namespace strata
