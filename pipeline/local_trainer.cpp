#include "strata/pipeline/local_trainer.h"

#include <numeric>

#include "strata/core/error.h"
#include "strata/core/timer.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/local_aggregator.h"
#include "strata/layers/optimizer.h"
#include "strata/pipeline/training_common.h"

namespace strata {
namespace {

double accuracy(const Matrix& logits, const Dataset& data, const std::vector<std::uint8_t>& mask) {
  const std::int64_t total = count_mask(mask);
  if (total == 0) return 0.0;
  const std::int64_t correct = kernels::argmax_correct(logits.view(), data.labels, mask);
  return static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch) {
  validate_train_config(config);
  const Csr normalized = gcn_normalize(data.adjacency, degrees_plus_one(data.adjacency));
  LocalAggregator aggregator(normalized);
  std::vector<GlobalId> global_ids(static_cast<std::size_t>(data.adjacency.rows));
  std::iota(global_ids.begin(), global_ids.end(), GlobalId{0});

  const std::unique_ptr<Model> model =
      make_model(model_config_for(data.features.cols(), data.num_classes, config));
  FeatureInput input(data.features);
  Adam optimizer(model->parameters(), adam_config_for(config));
  const double train_count = static_cast<double>(count_mask(data.train_mask));
  STRATA_REQUIRE(train_count > 0, "dataset '", data.name, "' has no training vertices");

  TrainResult result;
  Matrix grad(data.adjacency.rows, data.num_classes);
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    EpochMetrics m;
    m.epoch = epoch;
    Timer timer;
    model->zero_grad();
    const Matrix& logits = input.forward(*model, aggregator, global_ids, true, epoch);
    m.loss = kernels::masked_log_softmax_nll(logits.view(), data.labels, data.train_mask,
                                             train_count, grad.view());
    model->backward(aggregator, grad.view());
    optimizer.step();
    m.epoch_s = timer.seconds();
    m.compute_s = m.epoch_s;

    const Matrix& eval = input.forward(*model, aggregator, global_ids, false, epoch);
    m.train_acc = accuracy(eval, data, data.train_mask);
    m.val_acc = accuracy(eval, data, data.val_mask);
    m.test_acc = accuracy(eval, data, data.test_mask);
    record_epoch(result, m);
    if (on_epoch) on_epoch(m);
  }
  return result;
}

}  // namespace strata
