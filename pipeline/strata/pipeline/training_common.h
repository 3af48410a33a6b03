// Pieces every training loop shares: config checks, the model config, the feature input
// (dense or sparse), and keeping the best validation epoch.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "strata/datasets/feature_matrix.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/model.h"
#include "strata/layers/optimizer.h"
#include "strata/layers/sparse_features.h"
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

// Keeps the test accuracy of the first epoch with the best validation accuracy.
void record_epoch(TrainResult& result, const EpochMetrics& m);

// The epoch loop every trainer shares: record, total the bytes, report.
template <typename EpochFn>
TrainResult run_epochs(int epochs, EpochFn&& one_epoch, const EpochCallback& on_epoch) {
  TrainResult result;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const EpochMetrics m = one_epoch(epoch);
    record_epoch(result, m);
    for (const auto& [name, bytes] : m.comm_bytes) result.comm_bytes[name] += bytes;
    if (on_epoch) on_epoch(m);
  }
  return result;
}

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
