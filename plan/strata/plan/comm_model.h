// The analytic communication volume of each parallel mode (DESIGN.md, "Communication
// volume"): bytes sent per epoch, summed over ranks, by category. The training loops
// count the same categories, and tests hold the two equal byte for byte.
#pragma once
#include <cstdint>

#include "strata/core/row_codec.h"
#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/plan/stage_split.h"

namespace strata {

// The shape (layers/model.h) of a model over a dataset: its feature width and density,
// classes, N and the entries of the propagation matrix.
ModelShape model_shape_of(const Dataset& data, const ModelConfig& model);
ModelShape model_shape_of(const Dataset& data, ModelKind kind, int hidden, int layers);

struct CommVolume {
  std::int64_t halo_fwd = 0;
  std::int64_t halo_bwd = 0;
  std::int64_t stage_fwd = 0;
  std::int64_t stage_bwd = 0;
  std::int64_t allreduce = 0;
  std::int64_t eval = 0;  // the evaluation forward pass each epoch (not part of training)
  std::int64_t training() const { return halo_fwd + halo_bwd + stage_fwd + stage_bwd + allreduce; }
};

// How values travel: activation rows and their gradients in their row formats
// (core/row_codec.h; the evaluation pass as the forward rows), and the weight-gradient sums
// the all-reduce sends, in the backend's gradient type (8 bytes on the CPU, 4 on CUDA).
struct WireFormat {
  RowCodecs rows;
  int gradient_bytes = 8;
};
WireFormat wire_format_of(DType gradient_type, RowCodecs rows = {});

// boundary_pairs: B of partition/quality.h for the parts in use (0 with one part).
// An all-reduce of n values over P ranks is counted as a ring sends it: 2 (P-1) n values
// in all.
CommVolume graph_volume(const ModelShape& shape, std::int64_t boundary_pairs, int parts,
                        WireFormat wire = {});
CommVolume pipeline_volume(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                           WireFormat wire = {});
// S stages x G parts: halo exchange over G parts inside each stage, stage transfers
// between matching parts, all-reduce inside each stage's group of G ranks.
CommVolume hybrid_volume(const ModelShape& shape, const StageBounds& stages,
                         std::int64_t boundary_pairs, int parts, std::int64_t nodes,
                         WireFormat wire = {});

}  // namespace strata
