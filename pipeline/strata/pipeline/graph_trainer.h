// Graph-parallel training (mode `graph`): every rank owns one part of the graph, halo
// rows are exchanged at each aggregation, weight gradients are all-reduced. Exact: P
// ranks compute what one process computes, up to the order of floating-point sums.
#pragma once
#include "strata/comm/communicator.h"
#include "strata/pipeline/shard.h"
#include "strata/pipeline/train_config.h"

namespace strata {

// Collective over comm; shard.graph.part must equal comm.rank(). Every rank gets the same
// result; on_epoch runs on every rank with metrics already reduced over ranks.
TrainResult train_graph_parallel(Communicator& comm, const Shard& shard, const TrainConfig& config,
                                 const EpochCallback& on_epoch);

}  // namespace strata
