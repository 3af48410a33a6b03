#include "strata/pipeline/graph_trainer.h"

#include <algorithm>

#include "strata/core/timer.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/optimizer.h"
#include "strata/pipeline/fault_injection.h"
#include "strata/pipeline/gradient_reducer.h"
#include "strata/pipeline/halo_aggregator.h"
#include "strata/pipeline/numeric_guard.h"
#include "strata/pipeline/rank_metrics.h"
#include "strata/pipeline/training_common.h"
#include "strata/pipeline/training_loop.h"

namespace strata {
namespace {

class GraphTrainer : public EpochTrainer {
 public:
  GraphTrainer(Communicator& comm, const Shard& shard, const TrainConfig& config)
      : comm_(comm),
        shard_(shard),
        aggregator_(shard.graph, comm),
        model_(make_model(model_config_for(shard.features.cols(), shard.num_classes, config))),
        input_(shard.features),
        reducer_(model_->parameters()),
        optimizer_(model_->parameters(), adam_config_for(config)),
        ids_(shard.graph.local_to_global.begin(),
             shard.graph.local_to_global.begin() + shard.graph.owned),
        grad_(shard.graph.owned, shard.num_classes) {
    std::int64_t train = count_mask(shard.train_mask);
    comm_.all_reduce_sum(std::as_writable_bytes(std::span(&train, 1)), DType::kInt64,
                         CommCategory::kControl);
    STRATA_REQUIRE(train > 0, "dataset '", shard.name, "' has no training vertices");
    train_count_ = static_cast<double>(train);
    const ModelConfig model = model_config_for(shard.features.cols(), shard.num_classes, config);
    names_ = parameter_names(model, 0, model_->parameters().size());
    output_layer_ = output_layer_of(model);
    on_nan_ = parse_on_nan(config.on_nan);
    if (config.initial_weights.empty()) return;
    check_weight_count(config.initial_weights, model_->parameters().size());
    assign_parameters(model_->parameters(), config.initial_weights, 0);
  }

  // Every rank holds the whole model (the all-reduce keeps the copies equal).
  std::vector<std::vector<float>> weights() override {
    return parameter_values(model_->parameters());
  }

  // Every rank saves the whole model and optimizer (all equal), and which vertices it
  // owns, so that a resume on another partition is refused.
  void save_state(SectionWriter& out) override {
    out.section<GlobalId>(ids_);
    save_parameters(out, model_->parameters());
    save_adam(out, optimizer_);
  }

  void load_state(SectionReader& in) override {
    const auto owned = in.section_up_to<GlobalId>("owned vertices", ids_.size());
    STRATA_REQUIRE(owned == ids_, in.source(), ": the checkpoint's rank ", comm_.rank(),
                   " owned other vertices (another partition); resume with the same partition");
    load_parameters(in, model_->parameters());
    load_adam(in, optimizer_, model_->parameters());
  }

  EpochMetrics evaluation() override { return evaluation(0); }

  EpochMetrics evaluation(std::int64_t epoch) {
    const ByteCounters before = comm_.counters();
    std::array<double, 4> sums{0, 0, 0, 0};
    evaluate(epoch, sums);
    EpochMetrics m = reduce_epoch_metrics(comm_, epoch, sums, counts(), 0, 0, before);
    m.comm_bytes.clear();  // evaluation only: no training traffic to report
    return m;
  }

  EpochMetrics epoch(std::int64_t epoch) override {
    const ByteCounters before = comm_.counters();
    Timer timer;
    bool skipped = false;
    const double loss = train_step(epoch, skipped);
    const double step_s = timer.seconds();
    const double wait_s = comm_.counters().total_wait_seconds() - before.total_wait_seconds();
    std::array<double, 4> sums{loss, 0, 0, 0};
    evaluate(epoch, sums);
    EpochMetrics m = reduce_epoch_metrics(comm_, epoch, sums, counts(), step_s, wait_s, before);
    m.step_skipped = skipped;
    return m;
  }

 private:
  std::array<double, 3> counts() const {
    return {static_cast<double>(count_mask(shard_.train_mask)),
            static_cast<double>(count_mask(shard_.val_mask)),
            static_cast<double>(count_mask(shard_.test_mask))};
  }

  // The loss part of this rank; skipped: whether --on-nan skip-step left the weights alone.
  double train_step(std::int64_t epoch, bool& skipped) {
    model_->zero_grad();
    const Matrix& logits = input_.forward(*model_, aggregator_, ids_, true, epoch);
    fault_point(comm_.rank(), epoch);
    StepValues step{true, 0, all_finite(logits.view()) ? 0 : output_layer_, model_->parameters(),
                    names_};
    step.loss = kernels::masked_log_softmax_nll(logits.view(), shard_.labels, shard_.train_mask,
                                                train_count_, grad_.view());
    model_->backward(aggregator_, grad_.view());
    reducer_.all_reduce(comm_);
    skipped = !step_is_finite(comm_, on_nan_, epoch, step);
    if (!skipped) optimizer_.step();
    return step.loss;
  }

  void evaluate(std::int64_t epoch, std::array<double, 4>& sums) {
    aggregator_.set_evaluation(true);
    const Matrix& logits = input_.forward(*model_, aggregator_, ids_, false, epoch);
    aggregator_.set_evaluation(false);
    int i = 1;
    for (const auto* mask : {&shard_.train_mask, &shard_.val_mask, &shard_.test_mask})
      sums[i++] = static_cast<double>(kernels::argmax_correct(logits.view(), shard_.labels, *mask));
  }

  Communicator& comm_;
  const Shard& shard_;
  HaloAggregator aggregator_;
  std::unique_ptr<Model> model_;
  FeatureInput input_;
  GradientReducer reducer_;
  Adam optimizer_;
  std::vector<GlobalId> ids_;
  Matrix grad_;
  double train_count_ = 0;
  std::vector<std::string> names_;  // of the parameters
  int output_layer_ = 0;
  OnNan on_nan_ = OnNan::kStop;
};

}  // namespace

TrainResult train_graph_parallel(Communicator& comm, const Shard& shard, const TrainConfig& config,
                                 const EpochCallback& on_epoch) {
  validate_train_config(config);
  STRATA_REQUIRE(shard.parts == comm.size() && shard.graph.part == comm.rank(), "rank ",
                 comm.rank(), " of ", comm.size(), " was given part ", shard.graph.part, " of ",
                 shard.parts);
  GraphTrainer trainer(comm, shard, config);
  std::int64_t vertices = shard.graph.owned;
  comm.all_reduce_sum(std::as_writable_bytes(std::span(&vertices, 1)), DType::kInt64,
                      CommCategory::kControl);
  RunKey key = base_run_key("graph", comm.size(), config, shard.name, vertices,
                            shard.features.cols(), shard.num_classes);
  return run_training(comm, config, std::move(key), trainer, on_epoch);
}

}  // namespace strata
