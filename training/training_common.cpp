#include "strata/training/training_common.h"

#include <numeric>

#include "strata/core/error.h"
#include "strata/layers/model.h"

namespace strata {

const char* parallel_mode_name(ParallelMode mode) {
  switch (mode) {
    case ParallelMode::kLocal:
      return "local";
    case ParallelMode::kGraph:
      return "graph";
    case ParallelMode::kPipeline:
      return "pipeline";
    case ParallelMode::kHybrid:
      return "hybrid";
  }
  return "?";
}

void validate_train_config(const TrainConfig& c) {
  STRATA_REQUIRE(c.alpha >= 0.0f && c.alpha <= 1.0f, "--alpha must be in [0, 1], got ", c.alpha);
  STRATA_REQUIRE(c.lambda > 0.0f, "--lambda must be positive, got ", c.lambda);
  STRATA_REQUIRE(c.layers >= 1, "--layers must be at least 1, got ", c.layers);
  STRATA_REQUIRE(c.hidden >= 1, "--hidden must be at least 1, got ", c.hidden);
  STRATA_REQUIRE(c.epochs >= 0, "--epochs must not be negative, got ", c.epochs);
  STRATA_REQUIRE(c.dropout >= 0.0f && c.dropout < 1.0f, "--dropout must be in [0, 1), got ",
                 c.dropout);
  STRATA_REQUIRE(c.lr > 0.0f, "--lr must be positive, got ", c.lr);
  STRATA_REQUIRE(c.weight_decay >= 0.0f, "--weight-decay must not be negative, got ",
                 c.weight_decay);
  const bool conv = c.model != ModelKind::kGcnii && c.model != ModelKind::kGat;
  STRATA_REQUIRE(!c.recompute || conv, "--recompute is for models gcn, sage and gin, not ",
                 model_kind_name(c.model));
  STRATA_REQUIRE(c.storage == RowCodec::kFloat32 || conv,
                 "--storage bf16 is for models gcn, sage and gin, not ", model_kind_name(c.model));
  STRATA_REQUIRE(!c.factored_adjacency || model_type(c.model).propagation() == Propagation::kGcn,
                 "--adjacency degrees is for models gcn and gcnii (", model_kind_name(c.model),
                 " keeps no value an entry either way)");
  STRATA_REQUIRE(c.heads >= 1 && c.output_heads >= 1,
                 "--heads and --output-heads must be at least 1, got ", c.heads, " and ",
                 c.output_heads);
  STRATA_REQUIRE(c.attention_dropout >= 0.0f && c.attention_dropout < 1.0f,
                 "--attention-dropout must be in [0, 1), got ", c.attention_dropout);
  STRATA_REQUIRE(c.model == ModelKind::kGat ||
                     (c.heads == 1 && c.output_heads == 1 && c.attention_dropout == 0.0f),
                 "--heads, --output-heads and --attention-dropout are for model gat, not ",
                 model_kind_name(c.model));
  STRATA_REQUIRE(!c.learn_eps || c.model == ModelKind::kGin,
                 "--eps-learnable is for model gin, not ", model_kind_name(c.model));
  STRATA_REQUIRE(c.storage == RowCodec::kFloat32 || c.storage == RowCodec::kBf16,
                 "--storage must be fp32 or bf16");
}

ModelConfig model_config_for(std::int64_t in_features, std::int32_t classes, const TrainConfig& c) {
  ModelConfig m;
  m.in_features = static_cast<int>(in_features);
  m.hidden = c.hidden;
  m.classes = classes;
  m.num_layers = c.layers;
  m.dropout = c.dropout;
  m.seed = c.seed;
  m.kind = c.model;
  m.alpha = c.alpha;
  m.lambda = c.lambda;
  m.learn_eps = c.learn_eps;
  m.heads = c.heads;
  m.output_heads = c.output_heads;
  m.attention_dropout = c.attention_dropout;
  return m;
}

AdamConfig adam_config_for(const TrainConfig& c) {
  AdamConfig a;
  a.lr = c.lr;
  a.weight_decay = c.weight_decay;
  return a;
}

std::int64_t count_mask(std::span<const std::uint8_t> mask) {
  return std::accumulate(mask.begin(), mask.end(), std::int64_t{0});
}

void check_weight_count(const std::vector<std::vector<float>>& weights, std::size_t tensors) {
  STRATA_REQUIRE(weights.size() == tensors, "initial weights hold ", weights.size(),
                 " tensors, the model has ", tensors);
}

void record_epoch(TrainResult& result, const EpochMetrics& m) {
  if (result.best_epoch < 0 || m.val_acc > result.best_val_acc) {
    result.best_val_acc = m.val_acc;
    result.best_epoch = m.epoch;
    result.test_acc = m.test_acc;
  }
  result.epochs.push_back(m);
}

}  // namespace strata
