// Pieces every mode's training shares: config checks, the model and optimizer configs, and
// keeping the best validation epoch.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/layers/adam.h"
#include "strata/layers/model_config.h"
#include "strata/training/train_config.h"

namespace strata {

// Input errors naming the CLI flag for every out-of-range setting.
void validate_train_config(const TrainConfig& config);
ModelConfig model_config_for(std::int64_t in_features, std::int32_t classes, const TrainConfig& c);
AdamConfig adam_config_for(const TrainConfig& c);
std::int64_t count_mask(std::span<const std::uint8_t> mask);

// The whole model's initial weights must hold exactly `tensors` tensors.
void check_weight_count(const std::vector<std::vector<float>>& weights, std::size_t tensors);

// Keeps the test accuracy of the first epoch with the best validation accuracy.
void record_epoch(TrainResult& result, const EpochMetrics& m);

}  // namespace strata
