#include "conversions.h"

#include "strata/core/error.h"
#include "strata/layers/model.h"
#include "strata/plan/stage_split.h"

namespace strata {

Mode parse_mode(std::string_view name) {
  if (name == "local") return Mode::kLocal;
  if (name == "graph") return Mode::kGraph;
  if (name == "pipeline") return Mode::kPipeline;
  if (name == "hybrid") return Mode::kHybrid;
  throw_input_error("--mode must be local, graph, pipeline or hybrid, got '", name, "'");
}

const char* mode_name(Mode mode) {
  return parallel_mode_name(to_parallel_mode(mode));
}

LoadOptions to_load_options(const DatasetOptions& o) {
  return {o.split,      o.directed, o.binarize, o.row_normalize, o.nodes,
          o.avg_degree, o.features, o.classes,  o.seed,          o.feature_signal};
}

TrainConfig to_train_config(const Config& c) {
  TrainConfig t;
  t.model = parse_model_kind(c.model.kind);
  t.layers = c.model.layers;
  t.hidden = c.model.hidden;
  t.dropout = c.model.dropout;
  t.alpha = c.model.alpha;
  t.lambda = c.model.lambda;
  t.epochs = c.optimizer.epochs;
  t.lr = c.optimizer.lr;
  t.weight_decay = c.optimizer.weight_decay;
  t.seed = c.seed;
  t.on_nan = parse_on_nan(c.optimizer.on_nan);
  t.overlap = c.halo.overlap;
  t.checkpoint = {c.checkpoint.dir, c.checkpoint.every, c.checkpoint.resume, c.checkpoint.keep,
                  c.checkpoint.on_event};
  return t;
}

StaleGrad parse_stale_grad(std::string_view name) {
  for (StaleGrad s : {StaleGrad::kDrop, StaleGrad::kDelay, StaleGrad::kExact})
    if (name == stale_grad_name(s)) return s;
  throw_input_error("--stale-grad must be drop, delay or exact, got '", name, "'");
}

PipelineOptions to_pipeline_options(const Config::Pipeline& p) {
  PipelineOptions o;
  o.chunks = p.chunks;
  o.chunking = parse_partition_method(p.chunking);
  if (!p.layer_split.empty()) o.layer_split = parse_layer_split(p.layer_split);
  o.stale_grad = parse_stale_grad(p.stale_grad);
  o.stale_weight = p.stale_weight;
  o.warmup_epochs = p.warmup_epochs;
  o.alternate_order = p.alternate_order;
  o.smoothing = p.smoothing;
  o.diagnose = p.diagnose;
  return o;
}

DType gradient_type_on(const std::string& device) {
  if (device == "cpu") return DType::kFloat64;
  if (device == "cuda") return DType::kFloat32;
  throw_input_error("--device must be cpu or cuda, not '", device, "'");
}

ParallelMode to_parallel_mode(Mode mode) {
  switch (mode) {
    case Mode::kLocal:
      return ParallelMode::kLocal;
    case Mode::kGraph:
      return ParallelMode::kGraph;
    case Mode::kPipeline:
      return ParallelMode::kPipeline;
    case Mode::kHybrid:
      return ParallelMode::kHybrid;
  }
  return ParallelMode::kLocal;
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
  return {m.epoch,        m.loss,
          m.train_acc,    m.val_acc,
          m.test_acc,     m.epoch_s,
          m.compute_s,    m.comm_s,
          m.comm_bytes,   m.stage_compute_s,
          m.stage_idle_s, m.history_fraction,
          m.step_skipped, m.gradient_cosine,
          m.exact_loss,   m.layer_error};
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
