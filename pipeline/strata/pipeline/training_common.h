// Pieces every mode's training shares: config checks, the model and optimizer configs, and
// keeping the best validation epoch.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/layers/adam.h"
#include "strata/layers/model_config.h"
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

// The whole model's initial weights must hold exactly `tensors` tensors.
void check_weight_count(const std::vector<std::vector<float>>& weights, std::size_t tensors);

// Keeps the test accuracy of the first epoch with the best validation accuracy.
void record_epoch(TrainResult& result, const EpochMetrics& m);

}  // namespace strata
