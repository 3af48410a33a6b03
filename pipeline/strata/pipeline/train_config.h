// Plain configuration and result structs for training; the CLI only fills them in.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace strata {

struct TrainConfig {
  std::string model = "gcn";
  int layers = 2;
  int hidden = 16;
  int epochs = 200;
  float lr = 0.01f;
  float weight_decay = 5e-4f;
  float dropout = 0.5f;
  std::uint64_t seed = 0;
};

struct EpochMetrics {
  std::int64_t epoch = 0;
  double loss = 0;
  double train_acc = 0;
  double val_acc = 0;
  double test_acc = 0;
  double epoch_s = 0;  // wall time of the training step (forward, backward, update)
};

struct TrainResult {
  std::vector<EpochMetrics> epochs;
  double test_acc = 0;  // at the best validation epoch
  double best_val_acc = 0;
  std::int64_t best_epoch = -1;
};

using EpochCallback = std::function<void(const EpochMetrics&)>;

}  // namespace strata
