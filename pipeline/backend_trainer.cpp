#include "strata/pipeline/backend_trainer.h"

#include <array>
#include <cmath>

#include "strata/core/timer.h"
#include "strata/layers/backend_model.h"
#include "strata/pipeline/backend_halo.h"
#include "strata/pipeline/backend_stage.h"
#include "strata/pipeline/backend_state.h"
#include "strata/pipeline/fault_injection.h"
#include "strata/pipeline/numeric_guard.h"
#include "strata/pipeline/rank_metrics.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
namespace {

// A shard's features (sparse ones stay sparse) and owned ids, copied to the backend once.
struct ShardOnBackend {
  BackendFeatures features;
  kernels::Buffer ids;
  LabelsOnBackend labels;

  ShardOnBackend(const Shard& shard, const kernels::Backend& backend)
      : features(backend_features(backend, shard.features)),
        ids(kernels::to_backend<GlobalId>(backend,
                                          std::span(shard.graph.local_to_global.data(),
                                                    static_cast<std::size_t>(shard.graph.owned)))),
        labels(backend, shard.labels, {&shard.train_mask, &shard.val_mask, &shard.test_mask}) {}
};

class BackendTrainer : public EpochTrainer {
 public:
  BackendTrainer(Communicator& control, Communicator& data, const kernels::Backend& backend,
                 const Shard& shard, const TrainConfig& config)
      : control_(control),
        data_(data),
        backend_(backend),
        shard_(shard),
        aggregator_(shard.graph, data, backend),
        model_(make_backend_model(
            model_config_for(shard.features.cols(), shard.num_classes, config), backend)),
        parameters_(model_->parameters()),
        optimizer_(backend, parameters_.count(), adam_config_for(config)),
        arrays_(shard, backend),
        grad_(backend, shard.graph.owned, shard.num_classes),
        ids_(shard.graph.local_to_global.begin(),
             shard.graph.local_to_global.begin() + shard.graph.owned),
        on_nan_(parse_on_nan(config.on_nan)) {
    std::int64_t train = count_mask(shard.train_mask);
    control.all_reduce_sum(std::as_writable_bytes(std::span(&train, 1)), DType::kInt64,
                           CommCategory::kControl);
    STRATA_REQUIRE(train > 0, "dataset '", shard.name, "' has no training vertices");
    train_count_ = static_cast<double>(train);
    for (const TensorShape& s : parameters_.shapes()) names_.push_back(s.name);
    if (!config.initial_weights.empty()) parameters_.set_values(config.initial_weights);
  }

  std::vector<std::vector<float>> weights() override { return parameters_.values_on_host(); }

  void save_state(SectionWriter& out) override {
    out.section<GlobalId>(ids_);
    save_backend_parameters(out, parameters_, optimizer_);
  }

  void load_state(SectionReader& in) override {
    const auto owned = in.section_up_to<GlobalId>("owned vertices", ids_.size());
    STRATA_REQUIRE(owned == ids_, in.source(), ": the checkpoint's rank ", control_.rank(),
                   " owned other vertices (another partition); resume with the same partition");
    load_backend_parameters(in, parameters_, optimizer_);
  }

  EpochMetrics evaluation() override {
    const ByteCounters before = data_.counters();
    std::array<double, 4> sums{0, 0, 0, 0};
    evaluate(0, sums);
    EpochMetrics m = reduce_epoch_metrics(control_, 0, sums, counts(), 0, 0, before, before);
    m.comm_bytes.clear();
    return m;
  }

  EpochMetrics epoch(std::int64_t epoch) override {
    const ByteCounters before = data_.counters();
    Timer timer;
    bool skipped = false;
    const double loss = train_step(epoch, skipped);
    backend_.synchronize();
    const double step_s = timer.seconds();
    const double wait_s = data_.counters().total_wait_seconds() - before.total_wait_seconds();
    std::array<double, 4> sums{loss, 0, 0, 0};
    evaluate(epoch, sums);
    EpochMetrics m = reduce_epoch_metrics(control_, epoch, sums, counts(), step_s, wait_s, before,
                                          data_.counters());
    m.step_skipped = skipped;
    return m;
  }

 private:
  std::array<double, 3> counts() const {
    return {static_cast<double>(count_mask(shard_.train_mask)),
            static_cast<double>(count_mask(shard_.val_mask)),
            static_cast<double>(count_mask(shard_.test_mask))};
  }

  double train_step(std::int64_t epoch, bool& skipped) {
    parameters_.zero_grad();
    const kernels::Tensor& logits =
        model_->forward(aggregator_, arrays_.features, arrays_.ids.as<GlobalId>(), true, epoch);
    fault_point(control_.rank(), epoch);
    const double loss =
        backend_.masked_log_softmax_nll(logits.view(), arrays_.labels.labels_at(0),
                                        arrays_.labels.mask_at(0, 0), train_count_, grad_.view());
    model_->backward(aggregator_, grad_.view());
    if (data_.size() > 1)
      data_.all_reduce_sum({static_cast<std::byte*>(static_cast<void*>(parameters_.grads())),
                            static_cast<std::size_t>(parameters_.count()) * sizeof(float)},
                           DType::kFloat32, CommCategory::kAllReduce);
    // A non-finite logit on a training row shows as a non-finite loss.
    skipped =
        !backend_step_is_finite(control_, on_nan_, epoch, {true, loss, 0, {}, names_}, parameters_);
    if (!skipped) optimizer_.step(parameters_);
    return loss;
  }

  void evaluate(std::int64_t epoch, std::array<double, 4>& sums) {
    aggregator_.set_evaluation(true);
    const kernels::Tensor& logits =
        model_->forward(aggregator_, arrays_.features, arrays_.ids.as<GlobalId>(), false, epoch);
    aggregator_.set_evaluation(false);
    for (int i = 0; i < 3; ++i)
      sums[i + 1] = static_cast<double>(backend_.argmax_correct(
          logits.view(), arrays_.labels.labels_at(0), arrays_.labels.mask_at(i, 0)));
  }

  Communicator& control_;
  Communicator& data_;
  const kernels::Backend& backend_;
  const Shard& shard_;
  BackendHaloAggregator aggregator_;
  std::unique_ptr<BackendModel> model_;
  FlatParameters& parameters_;
  BackendAdam optimizer_;
  ShardOnBackend arrays_;
  kernels::Tensor grad_;
  std::vector<GlobalId> ids_;
  double train_count_ = 0;
  std::vector<std::string> names_;
  OnNan on_nan_;
};

}  // namespace

TrainResult train_on_backend(Communicator& control, Communicator& data,
                             const kernels::Backend& backend, const Shard& shard,
                             const TrainConfig& config, const char* mode,
                             const EpochCallback& on_epoch) {
  validate_train_config(config);
  STRATA_REQUIRE(shard.parts == control.size() && shard.graph.part == control.rank() &&
                     data.size() == control.size() && data.rank() == control.rank(),
                 "rank ", control.rank(), " of ", control.size(), " was given part ",
                 shard.graph.part, " of ", shard.parts);
  BackendTrainer trainer(control, data, backend, shard, config);
  std::int64_t vertices = shard.graph.owned;
  control.all_reduce_sum(std::as_writable_bytes(std::span(&vertices, 1)), DType::kInt64,
                         CommCategory::kControl);
  RunKey key = base_run_key(mode, control.size(), config, shard.name, vertices,
                            shard.features.cols(), shard.num_classes);
  key.emplace_back("device", backend.name());
  return run_training(control, config, std::move(key), trainer, on_epoch);
}

}  // namespace strata
