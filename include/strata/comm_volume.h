// The predicted bytes per epoch of each parallel mode, before any training
// (`strata comm-volume`). The training loops count the same bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/config.h"
#include "strata/graph.h"
#include "strata/result.h"

namespace strata {

struct CommVolumeRequest {
  int ranks = 4;               ///< graph mode uses this many parts, hybrid S x (ranks / S)
  std::vector<int> layers{2};  ///< model depths to compare
  int hidden = 256;
  std::string model = "gcn";                  ///< gcn | gcnii | sage | gin | gat
  bool eps_learnable = false;                 ///< gin: eps learnt (Config::Model)
  int heads = 1;                              ///< gat: hidden layers' heads (Config::Model)
  int output_heads = 1;                       ///< gat: the output layer's heads
  int stages = 0;                             ///< pipeline stages; 0: min(ranks, layers)
  std::vector<std::string> methods{"metis"};  ///< partitioners to compare
  Config::Partition partition;
  std::uint64_t seed = 0;
  /// > 0: also list every stages x parts factorization of `ranks` with its predicted
  /// bytes and memory per rank, and choose the cheapest that fits this many bytes.
  std::int64_t memory_per_rank = 0;
  int chunks = 4;  ///< pipeline chunks, for the memory estimate
  /// cpu | cuda: where the ranks train. Weight-gradient sums travel as doubles on the CPU
  /// (graph mode's exactness needs them) and as floats on CUDA.
  std::string device = "cpu";
  /// The format of halo and stage rows (Config::Compress).
  Config::Compress compress;
  /// What a rank keeps (Config::Memory), for the memory estimate.
  Config::Memory memory;
};

/// Bytes per epoch, summed over ranks, activations and their gradients in the request's
/// row format.
struct CommVolumeRow {
  std::string method, mode;  ///< mode: graph | pipeline | hybrid
  int layers = 0, stages = 1, parts = 1;
  std::int64_t halo_fwd = 0, halo_bwd = 0, stage_fwd = 0, stage_bwd = 0, allreduce = 0;
  std::int64_t training = 0;  ///< the sum of the five above
  std::int64_t eval = 0;      ///< the evaluation pass (not part of training)
};

/// One way to run `ranks` ranks in hybrid mode: S stages x G parts (S = 1 computes what
/// graph mode does, G = 1 what pipeline mode does).
struct Factorization {
  std::string method;
  int layers = 0, stages = 1, parts = 1;
  std::int64_t training = 0;  ///< predicted bytes per epoch, as CommVolumeRow::training
  /// The largest rank's predicted peak memory in hybrid mode, where every rank loads
  /// the whole dataset (graph mode with per-rank shards holds less).
  std::int64_t memory_per_rank = 0;
  bool fits = false;    ///< memory_per_rank <= CommVolumeRequest::memory_per_rank
  bool chosen = false;  ///< the fewest bytes of those that fit, per method and depth
};

struct CommVolumeReport {
  GraphSummary graph;
  std::vector<CommVolumeRow> rows;  ///< by method, then layers, then mode
  /// With memory_per_rank: by method, then layers, then stages ascending.
  std::vector<Factorization> factorizations;
  /// The row formats the bytes are for, each named ("none", "bf16", "int8").
  Config::Compress compress;
};

CommVolumeReport predict_comm_volume(const std::string& spec, const DatasetOptions& options,
                                     const CommVolumeRequest& request);

}  // namespace strata
