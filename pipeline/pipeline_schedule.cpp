#include "strata/pipeline/pipeline_schedule.h"

#include <algorithm>
#include <numeric>

#include "strata/core/timer.h"
#include "strata/kernels/kernels.h"
#include "strata/pipeline/fault_injection.h"
#include "strata/pipeline/numeric_guard.h"
#include "strata/pipeline/rank_metrics.h"
#include "strata/pipeline/schedule_common.h"
#include "strata/pipeline/training_common.h"

namespace strata {
namespace {

template <typename T>
std::span<const T> block_of(const std::vector<T>& v, const ChunkBlock& b) {
  return std::span(v).subspan(b.begin, b.end - b.begin);
}

}  // namespace

PipelineSchedule::PipelineSchedule(Communicator& comm, const Dataset& data,
                                   const TrainConfig& config, const PipelineOptions& options,
                                   const StageBounds& bounds, ChunkLayout layout, StageGrid grid)
    : comm_(comm),
      pipe_(grid.pipe ? *grid.pipe : comm),
      group_(grid.group),
      rank_(pipe_.rank()),
      ranks_(pipe_.size()),
      config_(config),
      options_(options),
      layout_(std::move(layout)),
      whole_(layout_.chunks() == 1 ? layout_.blocks : Blocks{whole_block(layout_)}),
      features_(rank_ == 0 ? data.features.select_rows(owned_ids(layout_)) : FeatureMatrix()),
      labels_(stage_labels(data, layout_)),
      stage_(make_pipeline_stage(
          model_config_for(data.features.cols(), data.num_classes, config), bounds[rank_],
          bounds[rank_ + 1], layout_, rank_ == 0 ? &features_ : nullptr,
          options.stale_grad == "delay" ? StaleGrad::kDelay : StaleGrad::kDrop, grid.halo)),
      optimizer_(stage_->parameters(), adam_config_for(config)),
      train_count_(labels_.counts[0]) {
  if (group_) {  // the loss is normalized by the whole stage's training vertices
    group_->all_reduce_sum(std::as_writable_bytes(std::span(&train_count_, 1)), DType::kFloat64,
                           CommCategory::kControl);
    reducer_.emplace(stage_->parameters());
  }
  STRATA_REQUIRE(train_count_ > 0, "dataset '", data.name, "' has no training vertices");
  count_stage_tensors();
  const ModelConfig model = model_config_for(data.features.cols(), data.num_classes, config);
  names_ = parameter_names(model, first_tensor_, stage_->parameters().size());
  output_layer_ = last_stage() ? output_layer_of(model) : bounds[rank_ + 1];
  on_nan_ = parse_on_nan(config.on_nan);
  if (config.initial_weights.empty()) return;
  check_weight_count(config.initial_weights,
                     std::accumulate(stage_tensors_.begin(), stage_tensors_.end(), std::size_t{0}));
  assign_parameters(stage_->parameters(), config.initial_weights, first_tensor_);
}

// Stage s holds tensors [first, first + count) of the model's parameter list.
void PipelineSchedule::count_stage_tensors() {
  const std::int64_t mine = static_cast<std::int64_t>(stage_->parameters().size());
  stage_tensors_.assign(static_cast<std::size_t>(ranks_), 0);
  pipe_.all_gather(std::as_bytes(std::span(&mine, 1)),
                   std::as_writable_bytes(std::span(stage_tensors_)), CommCategory::kControl);
  first_tensor_ = static_cast<std::size_t>(
      std::accumulate(stage_tensors_.begin(), stage_tensors_.begin() + rank_, std::int64_t{0}));
}

std::vector<std::vector<float>> PipelineSchedule::weights() {
  return gather_stage_weights(pipe_, stage_tensors_, parameter_values(stage_->parameters()));
}

double PipelineSchedule::chunk_loss(const ChunkBlock& b) {
  return kernels::masked_log_softmax_nll(stage_->output_rows(b), block_of(labels_.labels, b),
                                         block_of(labels_.masks[0], b), train_count_,
                                         stage_->output_grad_rows(b));
}

double PipelineSchedule::forward_pass(const Blocks& blocks, const std::vector<int>& order,
                                      bool training) {
  return strata::forward_pass(passes(), *stage_, blocks, order, training,
                              [this](const ChunkBlock& b) { return chunk_loss(b); });
}

std::array<double, 4> PipelineSchedule::evaluate(std::int64_t epoch) {
  stage_->begin_epoch(epoch, false);
  forward_pass(whole_, {0}, false);
  if (options_.smoothing > 0.0f) smooth_history();
  std::array<double, 4> sums{0, 0, 0, 0};
  if (!last_stage()) return sums;
  const ConstMatrixView logits = stage_->output_rows(whole_[0]);
  for (std::size_t i = 0; i < 3; ++i)
    sums[i + 1] =
        static_cast<double>(kernels::argmax_correct(logits, labels_.labels, labels_.masks[i]));
  return sums;
}

EpochMetrics PipelineSchedule::epoch(std::int64_t epoch) {
  const bool exact = epoch < options_.warmup_epochs || layout_.chunks() == 1;
  const Blocks& blocks = exact ? whole_ : layout_.blocks;
  const std::vector<int> order = chunk_order(options_, epoch, static_cast<int>(blocks.size()));
  const ByteCounters before = counters();
  Timer timer;
  stage_->zero_grad();
  stage_->begin_epoch(epoch, true);
  StepValues step{last_stage(), forward_pass(blocks, order, true), 0, stage_->parameters(), names_};
  fault_point(comm_.rank(), epoch);
  if (!all_finite(stage_->output_rows(whole_[0]))) step.nonfinite_output_layer = output_layer_;
  backward_pass(passes(), *stage_, blocks, order);
  if (reducer_) reducer_->all_reduce(*group_);
  const bool finite = step_is_finite(comm_, on_nan_, epoch, step);
  if (finite) optimizer_.step();
  const double step_s = timer.seconds();
  const double idle_s = counters().total_wait_seconds() - before.total_wait_seconds();
  std::array<double, 4> sums = evaluate(epoch);
  sums[0] = step.loss;
  EpochMetrics m = reduce_epoch_metrics(comm_, epoch, sums, label_counts(last_stage(), labels_),
                                        step_s, idle_s, before, counters());
  add_stage_times(comm_, ranks_, m, std::max(0.0, step_s - idle_s), idle_s);
  m.step_skipped = !finite;
  m.history_fraction = history_fraction(layout_, exact, order);
  return m;
}

EpochMetrics PipelineSchedule::evaluation() {
  const ByteCounters before = counters();
  EpochMetrics m = reduce_epoch_metrics(comm_, 0, evaluate(0), label_counts(last_stage(), labels_),
                                        0, 0, before, counters());
  m.comm_bytes.clear();  // evaluation only: no training traffic to report
  return m;
}

void PipelineSchedule::save_state(SectionWriter& out) {
  save_parameters(out, stage_->parameters());
  save_adam(out, optimizer_);
  save_matrices(out, stage_->carried_buffers());
  out.value(static_cast<std::int64_t>(previous_history_.size()));
  for (Matrix& m : previous_history_) save_matrices(out, {&m});
}

void PipelineSchedule::load_state(SectionReader& in) {
  load_parameters(in, stage_->parameters());
  load_adam(in, optimizer_, stage_->parameters());
  load_matrices(in, stage_->carried_buffers());
  const std::vector<Matrix*> history = stage_->history_buffers();
  const auto previous = in.value<std::int64_t>("previous history count");
  STRATA_REQUIRE(previous == 0 || previous == static_cast<std::int64_t>(history.size()),
                 in.source(), ": ", previous, " previous history buffers, the stage has ",
                 history.size());
  previous_history_.clear();
  for (std::int64_t i = 0; i < previous; ++i) {
    Matrix& m = previous_history_.emplace_back(history[i]->rows(), history[i]->cols());
    load_matrices(in, {&m});
  }
}

ByteCounters PipelineSchedule::counters() const {
  ByteCounters all = comm_.counters();
  if (&pipe_ != &comm_) all += pipe_.counters();
  if (group_) all += group_->counters();
  return all;
}

// history = smoothing * previous + (1 - smoothing) * fresh. A blend of old and new
// rows damps the jump the history makes when the weights move quickly.
void PipelineSchedule::smooth_history() {
  const std::vector<Matrix*> buffers = stage_->history_buffers();
  if (previous_history_.empty()) {
    for (const Matrix* p : buffers) previous_history_.push_back(*p);
    return;
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const MatrixView fresh = buffers[i]->view();
    kernels::scale(fresh, 1.0f - options_.smoothing);
    kernels::axpy(options_.smoothing, previous_history_[i].view(), fresh);
    kernels::copy(fresh, previous_history_[i].view());
  }
}

}  // namespace strata
