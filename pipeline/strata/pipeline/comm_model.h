// The analytic communication volume of each parallel mode (DESIGN.md, "Communication
// volume"): bytes sent per epoch, summed over ranks, by category. The training loops
// count the same categories, and tests hold the two equal byte for byte.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/pipeline/stage_split.h"

namespace strata {

// What a model moves, layer by layer. Layer i reads width[i] and writes width[i + 1].
struct ModelShape {
  std::vector<int> widths;              // d_0 = F ... d_L = C
  std::vector<int> exchange_widths;     // per layer: rows exchanged by its aggregation
  std::vector<bool> backward_exchange;  // per layer: whether backward exchanges too
  std::vector<int> boundary_widths;     // per layer: rows handed to the next layer's stage
  std::vector<double> costs;            // per layer: estimated work, for stage splits
  std::int64_t parameters = 0;          // trainable scalars, all layers
  int layers() const { return static_cast<int>(exchange_widths.size()); }
};

// A GCN stack (layers/gcn_model.h) over a graph with `nnz` entries in Â.
// in_density: the nonzero fraction of the input features (sparse input costs that much of
// a dense product in layer 0).
ModelShape gcn_shape(int in, int hidden, int classes, int layers, bool bias, std::int64_t nodes,
                     std::int64_t nnz, double in_density = 1.0);

// GCNII (layers/gcnii_model.h) with `layers` convolutions: every conv exchanges width
// `hidden` both ways (conv 1's input h0 needs its gradient), a stage boundary carries
// [h | h0] (2 hidden), the linear layers are folded into the first and last conv's cost.
ModelShape gcnii_shape(int in, int hidden, int classes, int layers, std::int64_t nodes,
                       std::int64_t nnz, double in_density = 1.0);

// The shape of a model over a dataset: its feature width, classes, N and the entries of
// Â (A + I).
ModelShape model_shape_of(const Dataset& data, ModelKind kind, int hidden, int layers);
inline ModelShape gcn_shape_of(const Dataset& data, int hidden, int layers) {
  return model_shape_of(data, ModelKind::kGcn, hidden, layers);
}

struct CommVolume {
  std::int64_t halo_fwd = 0;
  std::int64_t halo_bwd = 0;
  std::int64_t stage_fwd = 0;
  std::int64_t stage_bwd = 0;
  std::int64_t allreduce = 0;
  std::int64_t eval = 0;  // the evaluation forward pass each epoch (not part of training)
  std::int64_t training() const { return halo_fwd + halo_bwd + stage_fwd + stage_bwd + allreduce; }
};

// Gradients are all-reduced as double sums (kernels/cpu/gradient_sums.cpp says why).
inline constexpr int kGradientSumBytes = 8;

// boundary_pairs: B of partition/quality.h for the parts in use (0 with one part).
// An all-reduce of n values over P ranks is counted as a ring sends it: 2 (P-1) n values
// in all. value_bytes is the width of activations and their gradients.
CommVolume graph_volume(const ModelShape& shape, std::int64_t boundary_pairs, int parts,
                        int value_bytes = 4);
CommVolume pipeline_volume(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                           int value_bytes = 4);
// S stages x G parts: halo exchange over G parts inside each stage, stage transfers
// between matching parts, all-reduce inside each stage's group of G ranks.
CommVolume hybrid_volume(const ModelShape& shape, const StageBounds& stages,
                         std::int64_t boundary_pairs, int parts, std::int64_t nodes,
                         int value_bytes = 4);

}  // namespace strata
