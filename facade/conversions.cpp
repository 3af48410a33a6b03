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
  t.learn_eps = c.model.eps_learnable;
  t.heads = c.model.heads;
  t.output_heads = c.model.output_heads;
  t.attention_dropout = c.model.attention_dropout;
  t.epochs = c.optimizer.epochs;
  t.lr = c.optimizer.lr;
  t.weight_decay = c.optimizer.weight_decay;
  t.seed = c.seed;
  t.on_nan = parse_on_nan(c.optimizer.on_nan);
  t.overlap = c.halo.overlap;
  t.recompute = c.memory.recompute;
  t.storage = parse_storage(c.memory.storage);
  t.factored_adjacency = parse_adjacency_values(c.memory.adjacency);
  t.compress = to_row_codecs(c.compress);
  t.checkpoint = {c.checkpoint.dir, c.checkpoint.every, c.checkpoint.resume, c.checkpoint.keep,
                  c.checkpoint.on_event};
  return t;
}

bool parse_adjacency_values(std::string_view name) {
  if (name == "values") return false;
  if (name == "degrees") return true;
  throw_input_error("--adjacency must be values or degrees, got '", name, "'");
}

RowCodec parse_storage(std::string_view name) {
  if (name == "fp32") return RowCodec::kFloat32;
  if (name == "bf16") return RowCodec::kBf16;
  throw_input_error("--storage must be fp32 or bf16, got '", name, "'");
}

RowCodecs to_row_codecs(const Config::Compress& c) {
  const auto parse = [](const std::string& name, const char* flag) {
    const std::optional<RowCodec> codec = parse_row_codec(name);
    if (!codec) throw_input_error(flag, " must be none, bf16 or int8, got '", name, "'");
    return *codec;
  };
  const RowCodec forward = parse(c.forward, "--compress");
  return {forward, c.backward.empty() ? forward : parse(c.backward, "--compress-backward")};
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
  EpochRecord r;
  r.epoch = m.epoch;
  r.loss = m.loss;
  r.train_acc = m.train_acc;
  r.val_acc = m.val_acc;
  r.test_acc = m.test_acc;
  r.epoch_s = m.epoch_s;
  r.compute_s = m.compute_s;
  r.comm_s = m.comm_s;
  r.comm_overlap_s = m.comm_overlap_s;
  r.comm_bytes = m.comm_bytes;
  r.stage_compute_s = m.stage_compute_s;
  r.stage_idle_s = m.stage_idle_s;
  r.history_fraction = m.history_fraction;
  r.step_skipped = m.step_skipped;
  r.gradient_cosine = m.gradient_cosine;
  r.exact_loss = m.exact_loss;
  r.layer_error = m.layer_error;
  return r;
}

std::map<std::string, std::string> comm_formats(RowCodecs rows, DType gradient_type) {
  const auto name = [](RowCodec c) {
    return std::string(c == RowCodec::kFloat32 ? "float32" : row_codec_name(c));
  };
  return {{"halo_fwd", name(rows.forward)},
          {"stage_fwd", name(rows.forward)},
          {"eval", name(rows.forward)},
          {"halo_bwd", name(rows.backward)},
          {"stage_bwd", name(rows.backward)},
          {"allreduce", gradient_type == DType::kFloat64 ? "float64" : "float32"}};
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
