// Training with the tensors on a kernels::Backend (the GPU, or the CPU backend that tests
// the same code): modes local (one part) and graph, model gcn. Each rank keeps its
// shard's features, labels, masks, the model, its gradients and Adam's moments in the
// backend's memory; halo rows and the gradient all-reduce go through `data`, a
// communicator over that memory (NCCL, device staging, or for the CPU backend the host
// communicator itself). `control` (host memory) carries the metrics, the NaN agreement
// and the checkpoints. It computes what train_graph_parallel computes, with gradients
// summed in float instead of double (backend_gcn.h).
#pragma once
#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/pipeline/shard.h"
#include "strata/pipeline/train_config.h"

namespace strata {

// Collective over control and data (same ranks, same order). mode: "local" or "graph"
// (the run key's mode, so checkpoints of the two are told apart).
TrainResult train_on_backend(Communicator& control, Communicator& data,
                             const kernels::Backend& backend, const Shard& shard,
                             const TrainConfig& config, const char* mode,
                             const EpochCallback& on_epoch);

}  // namespace strata
