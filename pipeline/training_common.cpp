#include "strata/pipeline/training_common.h"

#include <algorithm>
#include <numeric>

#include "strata/core/error.h"
#include "strata/pipeline/numeric_guard.h"

namespace strata {

void validate_train_config(const TrainConfig& c) {
  parse_model_kind(c.model);
  parse_on_nan(c.on_nan);
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
}

ModelConfig model_config_for(std::int64_t in_features, std::int32_t classes, const TrainConfig& c) {
  ModelConfig m;
  m.in_features = static_cast<int>(in_features);
  m.hidden = c.hidden;
  m.classes = classes;
  m.num_layers = c.layers;
  m.dropout = c.dropout;
  m.seed = c.seed;
  m.kind = parse_model_kind(c.model);
  m.alpha = c.alpha;
  m.lambda = c.lambda;
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

std::vector<std::string> parameter_names(const ModelConfig& model, std::size_t first,
                                         std::size_t count) {
  const std::vector<TensorShape> shapes = parameter_shapes(model);
  STRATA_CHECK(first + count <= shapes.size(), "parameters ", first, "+", count, " of ",
               shapes.size());
  std::vector<std::string> names;
  for (std::size_t i = first; i < first + count; ++i) names.push_back(shapes[i].name);
  return names;
}

int output_layer_of(const ModelConfig& model) {
  return model.kind == ModelKind::kGcnii ? model.num_layers + 1 : model.num_layers;
}

std::vector<std::vector<float>> parameter_values(const ParameterList& parameters) {
  std::vector<std::vector<float>> values;
  for (const Parameter& p : parameters) values.emplace_back(p.value.begin(), p.value.end());
  return values;
}

void assign_parameters(const ParameterList& parameters,
                       const std::vector<std::vector<float>>& weights, std::size_t first) {
  STRATA_CHECK(first + parameters.size() <= weights.size(), "weights ", first, "+",
               parameters.size(), " of ", weights.size());
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const std::vector<float>& w = weights[first + i];
    STRATA_REQUIRE(w.size() == parameters[i].value.size(), "initial weights: tensor ", first + i,
                   " has ", w.size(), " values, the model's has ", parameters[i].value.size());
    std::copy(w.begin(), w.end(), parameters[i].value.begin());
  }
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

FeatureInput::FeatureInput(const FeatureMatrix& features) : features_(features) {
  if (features.is_sparse()) sparse_.emplace(features.sparse().view());
}

const Matrix& FeatureInput::forward(Model& model, Aggregator& aggregator,
                                    std::span<const GlobalId> ids, bool training,
                                    std::int64_t epoch) {
  if (sparse_) return model.forward(aggregator, *sparse_, ids, training, epoch);
  return model.forward(aggregator, features_.dense().view(), ids, training, epoch);
}

}  // namespace strata
