#include "strata/comm_volume.h"

#include <algorithm>

#include "factorizations.h"
#include "partition_cache.h"
#include "strata/layers/model.h"
#include "strata/plan/comm_model.h"
#include "strata/training/training_common.h"

namespace strata {
namespace {

// Hybrid: the stages asked for when they divide the ranks, else 2 x (ranks / 2).
int hybrid_stages(const CommVolumeRequest& r) {
  const int p = r.ranks;
  if (r.stages > 1 && r.stages < p && p % r.stages == 0) return r.stages;
  return p >= 4 && p % 2 == 0 ? 2 : 0;
}

CommVolumeRow row(const std::string& method, const char* mode, int layers, int stages, int parts,
                  const CommVolume& v) {
  return {method,     mode,        layers,      stages,      parts,        v.halo_fwd,
          v.halo_bwd, v.stage_fwd, v.stage_bwd, v.allreduce, v.training(), v.eval};
}

void add_rows(std::vector<CommVolumeRow>& rows, const Dataset& d, const CommVolumeRequest& r,
              const std::string& method, int layers, PartitionCache& parts_of) {
  const std::int64_t n = d.adjacency.rows;
  const ModelShape shape = request_shape(d, r, layers);
  const WireFormat wire = wire_format_of(gradient_type_on(r.device), to_row_codecs(r.compress));
  rows.push_back(row(method, "graph", layers, 1, r.ranks,
                     graph_volume(shape, parts_of.boundary_pairs(method, r.ranks), r.ranks, wire)));
  const int s = r.stages > 0 ? r.stages : std::min(r.ranks, layers);
  if (s <= layers)
    rows.push_back(row(method, "pipeline", layers, s, 1,
                       pipeline_volume(shape, split_layers_by_cost(shape.costs, s), n, wire)));
  const int hs = hybrid_stages(r);
  if (hs > 1 && hs <= layers) {
    const int g = r.ranks / hs;
    rows.push_back(row(method, "hybrid", layers, hs, g,
                       hybrid_volume(shape, split_layers_by_cost(shape.costs, hs),
                                     parts_of.boundary_pairs(method, g), g, n, wire)));
  }
}

}  // namespace

CommVolumeReport predict_comm_volume(const std::string& spec, const DatasetOptions& options,
                                     const CommVolumeRequest& request) {
  STRATA_REQUIRE(request.ranks >= 1, "--parts must be at least 1, got ", request.ranks);
  STRATA_REQUIRE(request.hidden >= 1, "--hidden must be at least 1, got ", request.hidden);
  for (int layers : request.layers)
    STRATA_REQUIRE(layers >= 1, "--layers must be at least 1, got ", layers);
  for (int layers : request.layers) validate_train_config(train_config_of(request, layers));
  gradient_type_on(request.device);
  to_row_codecs(request.compress);
  for (const auto& method : request.methods) parse_partition_method(method);
  const Dataset d = load_dataset(spec, to_load_options(options));
  STRATA_REQUIRE(request.memory_per_rank >= 0, "--memory-per-rank must not be negative");
  STRATA_REQUIRE(request.chunks >= 1, "--chunks must be at least 1, got ", request.chunks);
  PartitionCache parts_of(d, request);
  const RowCodecs codecs = to_row_codecs(request.compress);
  CommVolumeReport report{
      summarize(d), {}, {}, {row_codec_name(codecs.forward), row_codec_name(codecs.backward)}};
  for (const auto& method : request.methods)
    for (int layers : request.layers) {
      add_rows(report.rows, d, request, method, layers, parts_of);
      if (request.memory_per_rank > 0)
        add_factorizations(report.factorizations, d, request, method, layers, parts_of);
    }
  return report;
}

}  // namespace strata
