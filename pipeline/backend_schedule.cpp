#include "strata/pipeline/backend_schedule.h"

#include <algorithm>
#include <numeric>

#include "strata/core/timer.h"
#include "strata/pipeline/fault_injection.h"
#include "strata/pipeline/rank_metrics.h"
#include "strata/pipeline/schedule_common.h"
#include "strata/pipeline/training_common.h"

namespace strata {
namespace {

// Host copies of tensors go through save_matrices / load_matrices (the same record).
void save_tensors(SectionWriter& out, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors) {
  for (const kernels::Tensor* t : tensors) {
    Matrix host = kernels::to_host(backend, *t);
    save_matrices(out, {&host});
  }
}

void load_tensors(SectionReader& in, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors) {
  for (kernels::Tensor* t : tensors) {
    Matrix host(t->rows(), t->cols());
    load_matrices(in, {&host});
    *t = kernels::to_backend(backend, host.view());
  }
}

}  // namespace

BackendPipelineSchedule::BackendPipelineSchedule(Communicator& comm,
                                                 const kernels::Backend& backend,
                                                 const Dataset& data, const TrainConfig& config,
                                                 const PipelineOptions& options,
                                                 const StageBounds& bounds, ChunkLayout layout,
                                                 StageGrid grid, BackendGrid data_grid)
    : comm_(comm),
      pipe_(grid.pipe ? *grid.pipe : comm),
      group_(grid.group),
      data_(data_grid),
      backend_(backend),
      rank_(pipe_.rank()),
      ranks_(pipe_.size()),
      config_(config),
      options_(options),
      layout_(std::move(layout)),
      whole_(layout_.chunks() == 1 ? layout_.blocks : Blocks{whole_block(layout_)}),
      blocks_(layout_, backend),
      features_(rank_ == 0 ? data.features.select_rows(owned_ids(layout_)) : FeatureMatrix()),
      labels_(stage_labels(data, layout_)),
      labels_on_backend_(backend, labels_.labels,
                         {&labels_.masks[0], &labels_.masks[1], &labels_.masks[2]}),
      stage_(make_backend_stage(
          {backend, model_config_for(data.features.cols(), data.num_classes, config), layout_,
           blocks_, rank_ == 0 ? &features_ : nullptr,
           options.stale_grad == "delay" ? StaleGrad::kDelay : StaleGrad::kDrop, data_grid.halo},
          bounds[rank_], bounds[rank_ + 1])),
      optimizer_(backend, stage_->parameters().count(), adam_config_for(config)),
      train_count_(labels_.counts[0]) {
  STRATA_CHECK(data_.pipe != nullptr && data_.pipe->size() == ranks_, "a data pipe of ", ranks_,
               " stages");
  if (group_)  // the loss is normalized by the whole stage's training vertices
    group_->all_reduce_sum(std::as_writable_bytes(std::span(&train_count_, 1)), DType::kFloat64,
                           CommCategory::kControl);
  STRATA_REQUIRE(train_count_ > 0, "dataset '", data.name, "' has no training vertices");
  features_ = FeatureMatrix();  // on the backend now
  const ModelConfig model = model_config_for(data.features.cols(), data.num_classes, config);
  for (int s = 0; s < ranks_; ++s) {
    const auto [begin, end] = stage_tensor_range(model, bounds[s], bounds[s + 1]);
    stage_tensors_.push_back(static_cast<std::int64_t>(end - begin));
  }
  const auto [first, end] = stage_tensor_range(model, bounds[rank_], bounds[rank_ + 1]);
  names_ = parameter_names(model, first, end - first);
  output_layer_ = last_stage() ? output_layer_of(model) : bounds[rank_ + 1];
  on_nan_ = parse_on_nan(config.on_nan);
  const std::vector<std::vector<float>>& w = config.initial_weights;
  if (w.empty()) return;
  check_weight_count(w, static_cast<std::size_t>(
                            std::accumulate(stage_tensors_.begin(), stage_tensors_.end(), 0L)));
  stage_->parameters().set_values({w.begin() + static_cast<std::ptrdiff_t>(first),
                                   w.begin() + static_cast<std::ptrdiff_t>(end)});
}

std::vector<std::vector<float>> BackendPipelineSchedule::weights() {
  return gather_stage_weights(pipe_, stage_tensors_, stage_->parameters().values_on_host());
}

double BackendPipelineSchedule::chunk_loss(const ChunkBlock& b) {
  return backend_.masked_log_softmax_nll(
      stage_->output_rows(b), labels_on_backend_.labels_at(b.begin),
      labels_on_backend_.mask_at(0, b.begin), train_count_, stage_->output_grad_rows(b));
}

double BackendPipelineSchedule::train_passes(std::int64_t epoch, const Blocks& blocks,
                                             const std::vector<int>& order, bool& skipped) {
  FlatParameters& parameters = stage_->parameters();
  parameters.zero_grad();
  stage_->begin_epoch(epoch, true);
  StepValues step{last_stage(),
                  forward_pass(passes(), *stage_, blocks, order, true,
                               [this](const ChunkBlock& b) { return chunk_loss(b); }),
                  0,
                  {},
                  names_};
  fault_point(comm_.rank(), epoch);
  if (!backend_all_finite(backend_, stage_->output_rows(whole_[0])))
    step.nonfinite_output_layer = output_layer_;
  backward_pass(passes(), *stage_, blocks, order);
  if (data_.group && data_.group->size() > 1)
    data_.group->all_reduce_sum({static_cast<std::byte*>(static_cast<void*>(parameters.grads())),
                                 static_cast<std::size_t>(parameters.count()) * sizeof(float)},
                                DType::kFloat32, CommCategory::kAllReduce);
  skipped = !backend_step_is_finite(comm_, on_nan_, epoch, step, parameters);
  if (!skipped) optimizer_.step(parameters);
  return step.loss;
}

EpochMetrics BackendPipelineSchedule::epoch(std::int64_t epoch) {
  const bool exact = epoch < options_.warmup_epochs || layout_.chunks() == 1;
  const Blocks& blocks = exact ? whole_ : layout_.blocks;
  const std::vector<int> order = chunk_order(options_, epoch, static_cast<int>(blocks.size()));
  const ByteCounters before = counters();
  Timer timer;
  bool skipped = false;
  const double loss = train_passes(epoch, blocks, order, skipped);
  backend_.synchronize();
  const double step_s = timer.seconds();
  const double idle_s = counters().total_wait_seconds() - before.total_wait_seconds();
  std::array<double, 4> sums = evaluate(epoch);
  sums[0] = loss;
  EpochMetrics m = reduce_epoch_metrics(comm_, epoch, sums, label_counts(last_stage(), labels_),
                                        step_s, idle_s, before, counters());
  add_stage_times(comm_, ranks_, m, std::max(0.0, step_s - idle_s), idle_s);
  m.step_skipped = skipped;
  m.history_fraction = history_fraction(layout_, exact, order);
  return m;
}

std::array<double, 4> BackendPipelineSchedule::evaluate(std::int64_t epoch) {
  stage_->begin_epoch(epoch, false);
  forward_pass(passes(), *stage_, whole_, {0}, false, nullptr);
  if (options_.smoothing > 0.0f) smooth_history();
  std::array<double, 4> sums{0, 0, 0, 0};
  if (!last_stage()) return sums;
  const ConstMatrixView logits = stage_->output_rows(whole_[0]);
  for (int i = 0; i < 3; ++i)
    sums[i + 1] = static_cast<double>(backend_.argmax_correct(
        logits, labels_on_backend_.labels_at(0), labels_on_backend_.mask_at(i, 0)));
  return sums;
}

EpochMetrics BackendPipelineSchedule::evaluation() {
  const ByteCounters before = counters();
  EpochMetrics m = reduce_epoch_metrics(comm_, 0, evaluate(0), label_counts(last_stage(), labels_),
                                        0, 0, before, counters());
  m.comm_bytes.clear();  // evaluation only: no training traffic to report
  return m;
}

// history = smoothing * previous + (1 - smoothing) * fresh (PipelineSchedule's blend).
void BackendPipelineSchedule::smooth_history() {
  const std::vector<kernels::Tensor*> buffers = stage_->history_buffers();
  if (previous_history_.empty()) {
    for (const kernels::Tensor* p : buffers) {
      kernels::Tensor& copy = previous_history_.emplace_back(backend_, p->rows(), p->cols());
      backend_.copy(p->view(), copy.view());
    }
    return;
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const MatrixView fresh = buffers[i]->view();
    backend_.scale(fresh, 1.0f - options_.smoothing);
    backend_.axpy(options_.smoothing, previous_history_[i].view(), fresh);
    backend_.copy(fresh, previous_history_[i].view());
  }
}

void BackendPipelineSchedule::save_state(SectionWriter& out) {
  save_backend_parameters(out, stage_->parameters(), optimizer_);
  save_tensors(out, backend_, stage_->carried_buffers());
  out.value(static_cast<std::int64_t>(previous_history_.size()));
  for (kernels::Tensor& t : previous_history_) save_tensors(out, backend_, {&t});
}

void BackendPipelineSchedule::load_state(SectionReader& in) {
  load_backend_parameters(in, stage_->parameters(), optimizer_);
  load_tensors(in, backend_, stage_->carried_buffers());
  const std::vector<kernels::Tensor*> history = stage_->history_buffers();
  const auto previous = in.value<std::int64_t>("previous history count");
  STRATA_REQUIRE(previous == 0 || previous == static_cast<std::int64_t>(history.size()),
                 in.source(), ": ", previous, " previous history buffers, the stage has ",
                 history.size());
  previous_history_.clear();
  for (std::int64_t i = 0; i < previous; ++i) {
    kernels::Tensor& t =
        previous_history_.emplace_back(backend_, history[i]->rows(), history[i]->cols());
    load_tensors(in, backend_, {&t});
  }
}

ByteCounters BackendPipelineSchedule::counters() const {
  ByteCounters all = comm_.counters();
  std::vector<const Communicator*> seen{&comm_};
  for (const Communicator* c : {&pipe_, group_, data_.pipe, data_.group}) {
    if (c == nullptr || std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    all += c->counters();
    seen.push_back(c);
  }
  return all;
}

}  // namespace strata
