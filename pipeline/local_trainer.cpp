#include "strata/pipeline/local_trainer.h"

#include <numeric>

#include "strata/comm/in_process_communicator.h"
#include "strata/core/error.h"
#include "strata/core/timer.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/local_aggregator.h"
#include "strata/layers/optimizer.h"
#include "strata/pipeline/fault_injection.h"
#include "strata/pipeline/numeric_guard.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
namespace {

double accuracy(const Matrix& logits, const Dataset& data, const std::vector<std::uint8_t>& mask) {
  const std::int64_t total = count_mask(mask);
  if (total == 0) return 0.0;
  const std::int64_t correct = kernels::argmax_correct(logits.view(), data.labels, mask);
  return static_cast<double>(correct) / static_cast<double>(total);
}

class LocalTrainer : public EpochTrainer {
 public:
  LocalTrainer(Communicator& solo, const Dataset& data, const TrainConfig& config)
      : comm_(solo),
        data_(data),
        normalized_(gcn_normalize(data.adjacency, degrees_plus_one(data.adjacency))),
        aggregator_(normalized_),
        global_ids_(static_cast<std::size_t>(data.adjacency.rows)),
        model_(make_model(model_config_for(data.features.cols(), data.num_classes, config))),
        input_(data.features),
        optimizer_(model_->parameters(), adam_config_for(config)),
        train_count_(static_cast<double>(count_mask(data.train_mask))),
        grad_(data.adjacency.rows, data.num_classes) {
    STRATA_REQUIRE(train_count_ > 0, "dataset '", data.name, "' has no training vertices");
    std::iota(global_ids_.begin(), global_ids_.end(), GlobalId{0});
    const ModelConfig model = model_config_for(data.features.cols(), data.num_classes, config);
    names_ = parameter_names(model, 0, model_->parameters().size());
    output_layer_ = output_layer_of(model);
    on_nan_ = parse_on_nan(config.on_nan);
    if (config.initial_weights.empty()) return;
    check_weight_count(config.initial_weights, model_->parameters().size());
    assign_parameters(model_->parameters(), config.initial_weights, 0);
  }

  EpochMetrics epoch(std::int64_t epoch) override {
    Timer timer;
    model_->zero_grad();
    const Matrix& logits = input_.forward(*model_, aggregator_, global_ids_, true, epoch);
    fault_point(0, epoch);
    StepValues step{true, 0, all_finite(logits.view()) ? 0 : output_layer_, model_->parameters(),
                    names_};
    step.loss = kernels::masked_log_softmax_nll(logits.view(), data_.labels, data_.train_mask,
                                                train_count_, grad_.view());
    model_->backward(aggregator_, grad_.view());
    const bool finite = step_is_finite(comm_, on_nan_, epoch, step);
    if (finite) optimizer_.step();
    const double step_s = timer.seconds();
    EpochMetrics m = evaluate(epoch);
    m.loss = step.loss;
    m.step_skipped = !finite;
    m.epoch_s = step_s;
    m.compute_s = step_s;
    return m;
  }

  EpochMetrics evaluation() override { return evaluate(0); }

  EpochMetrics evaluate(std::int64_t epoch) {
    EpochMetrics m;
    m.epoch = epoch;
    const Matrix& eval = input_.forward(*model_, aggregator_, global_ids_, false, epoch);
    m.train_acc = accuracy(eval, data_, data_.train_mask);
    m.val_acc = accuracy(eval, data_, data_.val_mask);
    m.test_acc = accuracy(eval, data_, data_.test_mask);
    return m;
  }

  std::vector<std::vector<float>> weights() override {
    return parameter_values(model_->parameters());
  }

  void save_state(SectionWriter& out) override {
    save_parameters(out, model_->parameters());
    save_adam(out, optimizer_);
  }

  void load_state(SectionReader& in) override {
    load_parameters(in, model_->parameters());
    load_adam(in, optimizer_, model_->parameters());
  }

 private:
  Communicator& comm_;
  const Dataset& data_;
  Csr normalized_;
  LocalAggregator aggregator_;
  std::vector<GlobalId> global_ids_;
  std::unique_ptr<Model> model_;
  FeatureInput input_;
  Adam optimizer_;
  double train_count_ = 0;
  Matrix grad_;
  std::vector<std::string> names_;  // of the parameters
  int output_layer_ = 0;
  OnNan on_nan_ = OnNan::kStop;
};

}  // namespace

TrainResult train_one_process(const Dataset& data, const TrainConfig& config,
                              const EpochCallback& on_epoch) {
  validate_train_config(config);
  const std::unique_ptr<Communicator> solo = make_solo_communicator();
  LocalTrainer trainer(*solo, data, config);
  RunKey key = base_run_key("local", 1, config, data.name, data.adjacency.rows,
                            data.features.cols(), data.num_classes);
  return run_training(*solo, config, std::move(key), trainer, on_epoch);
}

}  // namespace strata
