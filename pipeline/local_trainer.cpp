#include "strata/pipeline/local_trainer.h"

#include <numeric>

#include "strata/core/error.h"
#include "strata/core/timer.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/gcn_model.h"
#include "strata/layers/local_aggregator.h"
#include "strata/layers/optimizer.h"

namespace strata {
namespace {

std::int64_t count_mask(const std::vector<std::uint8_t>& mask) {
  return std::accumulate(mask.begin(), mask.end(), std::int64_t{0});
}

double accuracy(const Matrix& logits, const Dataset& data, const std::vector<std::uint8_t>& mask) {
  const std::int64_t total = count_mask(mask);
  if (total == 0) return 0.0;
  const std::int64_t correct = kernels::argmax_correct(logits.view(), data.labels, mask);
  return static_cast<double>(correct) / static_cast<double>(total);
}

void validate_config(const TrainConfig& c) {
  STRATA_REQUIRE(c.model == "gcn", "--model: unknown model '", c.model, "' (available: gcn)");
  STRATA_REQUIRE(c.layers >= 1, "--layers must be at least 1, got ", c.layers);
  STRATA_REQUIRE(c.hidden >= 1, "--hidden must be at least 1, got ", c.hidden);
  STRATA_REQUIRE(c.epochs >= 0, "--epochs must not be negative, got ", c.epochs);
  STRATA_REQUIRE(c.dropout >= 0.0f && c.dropout < 1.0f, "--dropout must be in [0, 1), got ",
                 c.dropout);
  STRATA_REQUIRE(c.lr > 0.0f, "--lr must be positive, got ", c.lr);
  STRATA_REQUIRE(c.weight_decay >= 0.0f, "--weight-decay must not be negative, got ",
                 c.weight_decay);
}

GcnConfig model_config(const Dataset& data, const TrainConfig& c) {
  GcnConfig m;
  m.in_features = static_cast<int>(data.features.cols());
  m.hidden = c.hidden;
  m.classes = data.num_classes;
  m.num_layers = c.layers;
  m.dropout = c.dropout;
  m.seed = c.seed;
  return m;
}

}  // namespace

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch) {
  validate_config(config);
  const Csr normalized = gcn_normalize(data.adjacency, degrees_plus_one(data.adjacency));
  LocalAggregator aggregator(normalized);
  std::vector<GlobalId> global_ids(static_cast<std::size_t>(data.adjacency.rows));
  std::iota(global_ids.begin(), global_ids.end(), GlobalId{0});

  GcnModel model(model_config(data, config));
  AdamConfig adam_config;
  adam_config.lr = config.lr;
  adam_config.weight_decay = config.weight_decay;
  Adam optimizer(model.parameters(), adam_config);
  const double train_count = static_cast<double>(count_mask(data.train_mask));
  STRATA_REQUIRE(train_count > 0, "dataset '", data.name, "' has no training vertices");

  TrainResult result;
  Matrix grad(data.adjacency.rows, data.num_classes);
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    EpochMetrics m;
    m.epoch = epoch;
    Timer timer;
    model.zero_grad();
    const Matrix& logits = model.forward(aggregator, data.features.view(), global_ids, true, epoch);
    m.loss = kernels::masked_log_softmax_nll(logits.view(), data.labels, data.train_mask,
                                             train_count, grad.view());
    model.backward(aggregator, grad.view());
    optimizer.step();
    m.epoch_s = timer.seconds();

    const Matrix& eval = model.forward(aggregator, data.features.view(), global_ids, false, epoch);
    m.train_acc = accuracy(eval, data, data.train_mask);
    m.val_acc = accuracy(eval, data, data.val_mask);
    m.test_acc = accuracy(eval, data, data.test_mask);
    if (result.best_epoch < 0 || m.val_acc > result.best_val_acc) {
      result.best_val_acc = m.val_acc;
      result.best_epoch = epoch;
      result.test_acc = m.test_acc;
    }
    result.epochs.push_back(m);
    if (on_epoch) on_epoch(m);
  }
  return result;
}

}  // namespace strata
