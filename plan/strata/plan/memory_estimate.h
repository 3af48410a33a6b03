// What one pipeline rank will hold, predicted from sizes before anything is allocated:
// the dataset it loaded (a stage after the first releases the features' values, a hybrid
// rank of the first keeps its part's), the chunk layout
// (Â in chunk order and each block's transpose), its stage's per-layer buffers, and parameters with
// their gradients and Adam state. The process itself (libraries, MPI) is not included: callers add
// what they measured.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/core/row_codec.h"
#include "strata/core/types.h"
#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/plan/stage_split.h"

namespace strata {

struct MemoryEstimate {
  std::int64_t dataset = 0;      // adjacency, features (stage 0), labels, masks as kept
  std::int64_t layout = 0;       // Â in chunk order, its copies the backend multiplies, ids
  std::int64_t features = 0;     // first stage: features in chunk order and their dropout copy
  std::int64_t activations = 0;  // the stage's full-size per-layer buffers
  std::int64_t parameters = 0;   // values, gradients and their sums, Adam moments
  // Held only while the rank sets up (hybrid: the whole Â normalized and permuted), on top
  // of the dataset; the peak is whichever of the two phases is larger.
  std::int64_t setup = 0;
  std::int64_t total() const {
    return dataset + std::max(setup, layout + features + activations + parameters);
  }
};

// The vertex chunks of a pipeline epoch, whether backward runs every row at once
// (--stale-grad exact) instead of chunk by chunk, and the rows' wire formats (their
// exchange buffers); whether aggregations are recomputed (--recompute), and the format
// kept aggregations are stored in (--storage). The first stage reads dense features where
// they lie, through a list of its rows where they are in another order. The estimate is of
// a CPU rank, whose backend reads host arrays in place.
struct ChunkPlan {
  int chunks = 1;
  bool whole_backward = false;
  RowCodecs wire;
  bool recompute = false;
  RowCodec storage = RowCodec::kFloat32;
  bool factored_adjacency = false;  // GCN's Â as its degrees' scales (--adjacency degrees)
};

// gradient_type: the backend's (double on the CPU: the gradient sums take 8 bytes more).
MemoryEstimate estimate_pipeline_memory(const Dataset& data, const ModelConfig& model,
                                        const StageBounds& bounds, int stage, const ChunkPlan& plan,
                                        DType gradient_type = DType::kFloat64);

// One part of a partition as a hybrid rank holds it: its vertices, the other parts'
// neighbours of them, the entries of its rows of Â (a self-loop each included: a model
// without them has `owned` fewer) and those of them in halo columns, and the rows it sends
// per halo exchange (a vertex once per other part that neighbours it).
struct PartSizes {
  std::int64_t owned = 0, halo = 0, entries = 0, sent = 0, halo_entries = 0;
};
PartSizes measure_part(const Csr& adjacency, std::span<const std::int32_t> part_of, int part);

// Hybrid rank (stage, part): its stage's layers over the part's rows and halo.
MemoryEstimate estimate_hybrid_memory(const Dataset& data, const ModelConfig& model,
                                      const StageBounds& bounds, int stage, const ChunkPlan& plan,
                                      const PartSizes& part, DType gradient_type = DType::kFloat64);

// A graph-mode rank (one stage, one chunk, a halo): its shard as loaded (rows of the
// adjacency over local columns, features, labels, ids, halo plan), its features (read
// through a list of its rows unless the shard is numbered interior first), and every layer
// over its part; Â is taken as symmetric (an undirected graph) where the model's
// propagation is. plan.chunks is taken as 1.
MemoryEstimate estimate_shard_memory(const Csr& adjacency, const FeatureMatrix& features,
                                     bool interior_first, const ModelConfig& model,
                                     const PartSizes& part, ChunkPlan plan,
                                     DType gradient_type = DType::kFloat64);

// "412.3 MB (dataset 12.0, layout 30.1, ...)"
std::string describe(const MemoryEstimate& e);

}  // namespace strata
