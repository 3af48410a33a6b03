#include "strata/pipeline/comm_model.h"

#include "strata/core/error.h"
#include "strata/layers/gcn_layer.h"

namespace strata {
namespace {

std::int64_t halo_bytes(const ModelShape& shape, std::int64_t pairs, bool backward, int bytes) {
  std::int64_t total = 0;
  for (int l = 0; l < shape.layers(); ++l)
    if (!backward || shape.backward_exchange[l]) total += pairs * shape.exchange_widths[l] * bytes;
  return total;
}

std::int64_t stage_bytes(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                         int bytes) {
  STRATA_CHECK(!stages.empty() && stages.back() == shape.layers(), "stage bounds cover ",
               stages.empty() ? 0 : stages.back(), " layers of ", shape.layers());
  std::int64_t total = 0;
  for (std::size_t s = 1; s + 1 < stages.size(); ++s)
    total += nodes * shape.boundary_widths[stages[s] - 1] * bytes;
  return total;
}

std::int64_t ring_allreduce_bytes(std::int64_t values, int ranks, int bytes) {
  return 2 * (ranks - 1) * values * bytes;
}

}  // namespace

ModelShape gcn_shape(int in, int hidden, int classes, int layers, bool bias, std::int64_t nodes,
                     std::int64_t nnz, double in_density) {
  STRATA_REQUIRE(layers >= 1, "a GCN needs at least one layer, got ", layers);
  ModelShape shape;
  shape.widths.push_back(in);
  for (int l = 0; l + 1 < layers; ++l) shape.widths.push_back(hidden);
  shape.widths.push_back(classes);
  for (int l = 0; l < layers; ++l) {
    const int a = shape.widths[l], b = shape.widths[l + 1];
    const int w = GcnLayer::exchange_width(a, b);
    shape.exchange_widths.push_back(w);
    // Layer 0 never passes a gradient on to the features.
    shape.backward_exchange.push_back(!GcnLayer::aggregate_first(a, b) || l > 0);
    shape.boundary_widths.push_back(b);
    const double density = l == 0 ? in_density : 1.0;
    shape.costs.push_back(static_cast<double>(nnz) * w +
                          static_cast<double>(nodes) * a * b * density);
    shape.parameters += static_cast<std::int64_t>(a) * b + (bias ? b : 0);
  }
  return shape;
}

ModelShape gcnii_shape(int in, int hidden, int classes, int layers, std::int64_t nodes,
                       std::int64_t nnz, double in_density) {
  STRATA_REQUIRE(layers >= 1, "a GCNII needs at least one conv, got ", layers);
  ModelShape shape;
  shape.widths.assign(static_cast<std::size_t>(layers) + 1, hidden);
  const double n = static_cast<double>(nodes), h = hidden;
  for (int l = 0; l < layers; ++l) {
    shape.exchange_widths.push_back(hidden);
    shape.backward_exchange.push_back(true);
    shape.boundary_widths.push_back(2 * hidden);
    shape.costs.push_back(static_cast<double>(nnz) * h + n * h * h);
  }
  shape.costs.front() += n * in * h * in_density;
  shape.costs.back() += n * h * classes;
  shape.parameters = static_cast<std::int64_t>(in) * hidden + hidden +
                     static_cast<std::int64_t>(layers) * hidden * hidden +
                     static_cast<std::int64_t>(hidden) * classes + classes;
  return shape;
}

ModelShape model_shape_of(const Dataset& data, ModelKind kind, int hidden, int layers) {
  const std::int64_t n = data.adjacency.rows, nnz = data.adjacency.nnz() + n;
  const int in = static_cast<int>(data.features.cols());
  const double density = data.features.is_sparse() ? data.features.density() : 1.0;
  if (kind == ModelKind::kGcnii)
    return gcnii_shape(in, hidden, data.num_classes, layers, n, nnz, density);
  return gcn_shape(in, hidden, data.num_classes, layers, true, n, nnz, density);
}

CommVolume graph_volume(const ModelShape& shape, std::int64_t boundary_pairs, int parts,
                        int value_bytes) {
  CommVolume v;
  v.halo_fwd = halo_bytes(shape, boundary_pairs, false, value_bytes);
  v.halo_bwd = halo_bytes(shape, boundary_pairs, true, value_bytes);
  v.allreduce = ring_allreduce_bytes(shape.parameters, parts, kGradientSumBytes);
  v.eval = v.halo_fwd;
  return v;
}

CommVolume pipeline_volume(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                           int value_bytes) {
  CommVolume v;
  v.stage_fwd = stage_bytes(shape, stages, nodes, value_bytes);
  v.stage_bwd = v.stage_fwd;
  v.eval = v.stage_fwd;
  return v;
}

CommVolume hybrid_volume(const ModelShape& shape, const StageBounds& stages,
                         std::int64_t boundary_pairs, int parts, std::int64_t nodes,
                         int value_bytes) {
  CommVolume v = graph_volume(shape, boundary_pairs, parts, value_bytes);
  const CommVolume p = pipeline_volume(shape, stages, nodes, value_bytes);
  v.stage_fwd = p.stage_fwd;
  v.stage_bwd = p.stage_bwd;
  v.eval += p.eval;
  return v;
}

}  // namespace strata
