#include "strata/plan/comm_model.h"

#include "strata/core/error.h"

namespace strata {
namespace {

std::int64_t halo_bytes(const ModelShape& shape, std::int64_t pairs, bool backward,
                        RowCodec codec) {
  std::int64_t total = 0;
  for (int l = 0; l < shape.layers(); ++l)
    if (!backward || shape.backward_exchange[l])
      total += pairs * row_codec_bytes(codec, shape.exchange_widths[l]);
  return total;
}

std::int64_t stage_bytes(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                         RowCodec codec) {
  STRATA_CHECK(!stages.empty() && stages.back() == shape.layers(), "stage bounds cover ",
               stages.empty() ? 0 : stages.back(), " layers of ", shape.layers());
  std::int64_t total = 0;
  for (std::size_t s = 1; s + 1 < stages.size(); ++s)
    total += nodes * row_codec_bytes(codec, shape.boundary_widths[stages[s] - 1]);
  return total;
}

std::int64_t ring_allreduce_bytes(std::int64_t values, int ranks, int bytes) {
  return 2 * (ranks - 1) * values * bytes;
}

}  // namespace

ModelShape model_shape_of(const Dataset& data, const ModelConfig& model) {
  const std::int64_t n = data.adjacency.rows;
  const bool self_loops = has_self_loops(model_type(model.kind).propagation());
  const GraphSize size{n, data.adjacency.nnz() + (self_loops ? n : 0),
                       data.features.is_sparse() ? data.features.density() : 1.0};
  return model_type(model.kind).shape(model, size);
}

ModelShape model_shape_of(const Dataset& data, ModelKind kind, int hidden, int layers) {
  ModelConfig model;
  model.kind = kind;
  model.in_features = static_cast<int>(data.features.cols());
  model.hidden = hidden;
  model.classes = data.num_classes;
  model.num_layers = layers;
  return model_shape_of(data, model);
}

WireFormat wire_format_of(DType gradient_type, RowCodecs rows) {
  return {rows, static_cast<int>(dtype_size(gradient_type))};
}

CommVolume graph_volume(const ModelShape& shape, std::int64_t boundary_pairs, int parts,
                        WireFormat wire) {
  CommVolume v;
  v.halo_fwd = halo_bytes(shape, boundary_pairs, false, wire.rows.forward);
  v.halo_bwd = halo_bytes(shape, boundary_pairs, true, wire.rows.backward);
  v.allreduce = ring_allreduce_bytes(shape.parameters, parts, wire.gradient_bytes);
  v.eval = v.halo_fwd;
  return v;
}

CommVolume pipeline_volume(const ModelShape& shape, const StageBounds& stages, std::int64_t nodes,
                           WireFormat wire) {
  CommVolume v;
  v.stage_fwd = stage_bytes(shape, stages, nodes, wire.rows.forward);
  v.stage_bwd = stage_bytes(shape, stages, nodes, wire.rows.backward);
  v.eval = v.stage_fwd;
  return v;
}

CommVolume hybrid_volume(const ModelShape& shape, const StageBounds& stages,
                         std::int64_t boundary_pairs, int parts, std::int64_t nodes,
                         WireFormat wire) {
  CommVolume v = graph_volume(shape, boundary_pairs, parts, wire);
  const CommVolume p = pipeline_volume(shape, stages, nodes, wire);
  v.stage_fwd = p.stage_fwd;
  v.stage_bwd = p.stage_bwd;
  v.eval += p.eval;
  return v;
}

}  // namespace strata
