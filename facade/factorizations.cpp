#include "factorizations.h"

#include <algorithm>

#include "strata/layers/model.h"
#include "strata/plan/comm_model.h"
#include "strata/training/modes.h"
#include "strata/training/training_common.h"

namespace strata {
namespace {

std::int64_t largest_rank(const Dataset& d, const TrainConfig& t, const PipelineOptions& o,
                          std::span<const std::int32_t> part_of, int stages, int parts,
                          DType gradient_type) {
  std::int64_t largest = 0;
  for (int rank = 0; rank < stages * parts; ++rank)
    largest = std::max(
        largest,
        estimate_hybrid_rank(d, t, o, part_of, parts, stages, rank, gradient_type).total());
  return largest;
}

}  // namespace

TrainConfig train_config_of(const CommVolumeRequest& r, int layers) {
  TrainConfig t;
  t.model = parse_model_kind(r.model);
  t.layers = layers;
  t.hidden = r.hidden;
  t.learn_eps = r.eps_learnable;
  t.heads = r.heads;
  t.output_heads = r.output_heads;
  t.compress = to_row_codecs(r.compress);
  t.recompute = r.memory.recompute;
  t.storage = parse_storage(r.memory.storage);
  t.factored_adjacency = parse_adjacency_values(r.memory.adjacency);
  return t;
}

ModelShape request_shape(const Dataset& d, const CommVolumeRequest& r, int layers) {
  return model_shape_of(
      d, model_config_for(d.features.cols(), d.num_classes, train_config_of(r, layers)));
}

void add_factorizations(std::vector<Factorization>& out, const Dataset& d,
                        const CommVolumeRequest& r, const std::string& method, int layers,
                        PartitionCache& parts_of) {
  const ModelShape shape = request_shape(d, r, layers);
  const TrainConfig train = train_config_of(r, layers);
  PipelineOptions options;
  options.chunks = r.chunks;
  const std::size_t first = out.size();
  for (int stages = 1; stages <= std::min(r.ranks, layers); ++stages) {
    if (r.ranks % stages != 0) continue;
    const int parts = r.ranks / stages;
    const PartitionCache::Entry& p = parts_of.get(method, parts);
    Factorization f{method, layers, stages, parts};
    const DType gradients = gradient_type_on(r.device);
    f.training =
        hybrid_volume(shape, split_layers_by_cost(shape.costs, stages), p.boundary_pairs, parts,
                      d.adjacency.rows, wire_format_of(gradients, to_row_codecs(r.compress)))
            .training();
    // One stage is graph mode (the "as" column), which runs one chunk: nothing to pipeline.
    PipelineOptions layout = options;
    if (stages == 1) layout.chunks = 1;
    f.memory_per_rank = largest_rank(d, train, layout, p.part_of, stages, parts, gradients);
    f.fits = f.memory_per_rank <= r.memory_per_rank;
    out.push_back(f);
  }
  auto chosen = out.end();
  for (auto it = out.begin() + static_cast<std::ptrdiff_t>(first); it != out.end(); ++it)
    if (it->fits && (chosen == out.end() || it->training < chosen->training)) chosen = it;
  if (chosen != out.end()) chosen->chosen = true;
}

}  // namespace strata
