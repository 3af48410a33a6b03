#include "conversions.h"

#include "strata/core/error.h"

namespace strata {

Mode parse_mode(std::string_view name) {
  if (name == "local") return Mode::kLocal;
  if (name == "graph") return Mode::kGraph;
  if (name == "pipeline") return Mode::kPipeline;
  if (name == "hybrid") return Mode::kHybrid;
  throw_input_error("--mode must be local, graph, pipeline or hybrid, got '", name, "'");
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kLocal:
      return "local";
    case Mode::kGraph:
      return "graph";
    case Mode::kPipeline:
      return "pipeline";
    case Mode::kHybrid:
      return "hybrid";
  }
  return "?";
}

LoadOptions to_load_options(const DatasetOptions& o) {
  return {o.split,      o.directed, o.binarize, o.row_normalize, o.nodes,
          o.avg_degree, o.features, o.classes,  o.seed,          o.feature_signal};
}

TrainConfig to_train_config(const Config& c) {
  TrainConfig t;
  t.model = c.model.kind;
  t.layers = c.model.layers;
  t.hidden = c.model.hidden;
  t.dropout = c.model.dropout;
  t.alpha = c.model.alpha;
  t.lambda = c.model.lambda;
  t.epochs = c.optimizer.epochs;
  t.lr = c.optimizer.lr;
  t.weight_decay = c.optimizer.weight_decay;
  t.seed = c.seed;
  t.on_nan = c.optimizer.on_nan;
  t.checkpoint = {c.checkpoint.dir, c.checkpoint.every, c.checkpoint.resume, c.checkpoint.keep,
                  c.checkpoint.on_event};
  return t;
}

PipelineOptions to_pipeline_options(const Config::Pipeline& p) {
  return {p.chunks,        p.chunking,        p.layer_split, p.stale_grad,
          p.warmup_epochs, p.alternate_order, p.smoothing};
}

PartitionOptions to_partition_options(const Config::Partition& p, int parts, std::uint64_t seed) {
  PartitionOptions o;
  o.method = parse_partition_method(p.method);
  o.parts = parts;
  o.imbalance = p.imbalance;
  o.metis_min_volume = p.min_volume;
  o.balance_edges = p.balance_edges;
  o.seed = seed;
  return o;
}

EpochRecord to_record(const EpochMetrics& m) {
  return {
      m.epoch,       m.loss,   m.train_acc,  m.val_acc,         m.test_acc,     m.epoch_s,
      m.compute_s,   m.comm_s, m.comm_bytes, m.stage_compute_s, m.stage_idle_s, m.history_fraction,
      m.step_skipped};
}

GraphSummary summarize(const Dataset& d) {
  return {d.name,
          d.adjacency.rows,
          d.adjacency.nnz(),
          d.features.cols(),
          d.features.is_sparse(),
          d.features.density(),
          d.num_classes};
}

}  // namespace strata
