// Pieces every training loop shares: config checks, the model config, the feature input
// (dense or sparse), and keeping the best validation epoch.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "strata/datasets/feature_matrix.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/sparse_features.h"
#include "strata/layers/model.h"
#include "strata/layers/optimizer.h"
#include "strata/pipeline/train_config.h"

namespace strata {

// Input errors naming the CLI flag for every out-of-range setting.
void validate_train_config(const TrainConfig& config);
ModelConfig model_config_for(std::int64_t in_features, std::int32_t classes, const TrainConfig& c);
AdamConfig adam_config_for(const TrainConfig& c);
std::int64_t count_mask(std::span<const std::uint8_t> mask);
// values[ids[0]], values[ids[1]], ...
template <typename T>
std::vector<T> select_values(const std::vector<T>& values, std::span<const GlobalId> ids) {
  std::vector<T> out;
  out.reserve(ids.size());
  for (GlobalId id : ids) out.push_back(values[static_cast<std::size_t>(id)]);
  return out;
}

// The names of the model's parameters [first, first + count), as parameter_shapes gives them.
std::vector<std::string> parameter_names(const ModelConfig& model, std::size_t first,
                                         std::size_t count);

// The number of the layer whose output is the logits (gcnii: its output linear, L + 1).
int output_layer_of(const ModelConfig& model);

// Flat copies of the parameters' values, in list order.
std::vector<std::vector<float>> parameter_values(const ParameterList& parameters);
// Overwrites the parameters with weights[first], weights[first + 1], ...; an input error
// names the tensor whose size does not match.
void assign_parameters(const ParameterList& parameters,
                       const std::vector<std::vector<float>>& weights, std::size_t first);
// The whole model's initial weights must hold exactly `tensors` tensors.
void check_weight_count(const std::vector<std::vector<float>>& weights, std::size_t tensors);

// Keeps the test accuracy of the first epoch with the best validation accuracy.
void record_epoch(TrainResult& result, const EpochMetrics& m);

// Runs the model on features that are dense or sparse (Xᵀ built once).
class FeatureInput {
 public:
  explicit FeatureInput(const FeatureMatrix& features);
  const Matrix& forward(Model& model, Aggregator& aggregator, std::span<const GlobalId> ids,
                        bool training, std::int64_t epoch);

 private:
  const FeatureMatrix& features_;
  std::optional<SparseFeatures> sparse_;
};

}  // namespace strata
