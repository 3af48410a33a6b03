#include "strata/training/rank_trainer.h"

#include <algorithm>
#include <numeric>

#include "strata/core/random.h"
#include "strata/core/timer.h"
#include "strata/layers/model.h"
#include "strata/training/fault_injection.h"
#include "strata/training/rank_metrics.h"
#include "strata/training/schedule_common.h"
#include "strata/training/training_common.h"

namespace strata {
namespace {

std::optional<Features> features_on(const kernels::Backend& backend, const FeatureMatrix* f,
                                    std::vector<LocalId> rows) {
  if (f == nullptr) return std::nullopt;
  if (f->is_sparse()) return Features(backend, f->sparse().view());
  if (!rows.empty()) return Features(backend, f->dense().view(), std::move(rows));
  return Features(backend, f->dense().view());
}

// kExact is the trainer's business (one backward over every row); the stage drops nothing.
StaleGrad stage_stale_grad(StaleGrad s) {
  return s == StaleGrad::kExact ? StaleGrad::kDrop : s;
}

}  // namespace

RankTrainer::RankTrainer(RankGrid& grid, const kernels::Backend& backend, RankData data,
                         const RankSetup& setup)
    : grid_(grid),
      backend_(backend),
      setup_(setup),
      layout_(std::move(data.layout)),
      whole_{layout_.chunk_count() == 1 ? layout_.chunks : std::vector<Block>{{0, layout_.owned}}},
      halo_(grid.parts() > 1 ? std::optional<StageHalo>(std::in_place, layout_, *grid.data_group(),
                                                        backend, setup.config.compress)
                             : std::nullopt),
      wire_(backend, setup.config.compress),
      rows_(layout_, backend, halo_ ? &*halo_ : nullptr, setup.config.overlap,
            model_type(setup.model.kind).reads_entries()),
      host_features_(std::move(data.features)),
      features_(features_on(backend, host_features_.get(), std::move(data.feature_rows))),
      labels_(std::move(data.labels)),
      labels_on_backend_(backend, labels_),
      stage_(make_stage({backend, setup.model, rows_, features_ ? &*features_ : nullptr,
                         stage_stale_grad(setup.options.stale_grad), setup.options.stale_weight,
                         setup.config.recompute, setup.config.storage,
                         setup.options.stale_grad == StaleGrad::kExact, setup.options.diagnose},
                        setup.bounds[grid.stage()], setup.bounds[grid.stage() + 1])),
      optimizer_(backend, stage_->parameters().count(), adam_config_for(setup.config)),
      train_count_(labels_.counts[0]) {
  if (grid_.group())  // the loss is normalized by the whole stage's training vertices
    grid_.group()->all_reduce_sum(std::as_writable_bytes(std::span(&train_count_, 1)),
                                  DType::kFloat64, CommCategory::kControl);
  STRATA_REQUIRE(train_count_ > 0, "the dataset has no training vertices");
  for (int s = 0; s < grid_.stages(); ++s) {
    const auto [begin, end] = stage_tensor_range(setup.model, setup.bounds[s], setup.bounds[s + 1]);
    stage_tensors_.push_back(static_cast<std::int64_t>(end - begin));
  }
  output_layer_ = last_stage() ? model_type(setup.model.kind).output_layer(setup.model)
                               : setup.bounds[grid_.stage() + 1];
  if (grid_.stages() > 1) rows_.set_progress([this] { grid_.data_pipe().progress(); });
  set_initial_weights();
}

void RankTrainer::set_initial_weights() {
  const std::vector<std::vector<float>>& w = setup_.config.initial_weights;
  if (w.empty()) return;
  check_weight_count(w, static_cast<std::size_t>(std::accumulate(
                            stage_tensors_.begin(), stage_tensors_.end(), std::int64_t{0})));
  const auto [first, end] = stage_tensor_range(setup_.model, setup_.bounds[grid_.stage()],
                                               setup_.bounds[grid_.stage() + 1]);
  stage_->parameters().set_values({w.begin() + static_cast<std::ptrdiff_t>(first),
                                   w.begin() + static_cast<std::ptrdiff_t>(end)});
}

std::vector<std::vector<float>> RankTrainer::weights() {
  return gather_stage_weights(grid_.pipe(), stage_tensors_, stage_->parameters().values_on_host());
}

double RankTrainer::chunk_loss(const Block& b) {
  return backend_.masked_log_softmax_nll(
      stage_->output_rows(b), labels_on_backend_.labels_at(b.begin),
      labels_on_backend_.mask_at(0, b.begin), train_count_, stage_->output_grad_rows(b));
}

// Each part summed its rows' share of the gradients; the stage's parts add them up.
void RankTrainer::reduce_gradients() {
  Parameters& p = stage_->parameters();
  Communicator* group = grid_.data_group();
  if (group && group->size() > 1)
    group->all_reduce_sum({static_cast<std::byte*>(p.sums()), p.sums_bytes()}, p.gradient_type(),
                          CommCategory::kAllReduce);
  p.finish_gradients();
}

// int8's rounding draws from (seed, epoch, pass, rank): a rerun, and a run resumed from a
// checkpoint, round alike. pass: 0 training, 1 evaluation.
void RankTrainer::begin_wire_passes(std::int64_t epoch, int pass) {
  const std::uint64_t key =
      hash_key(setup_.config.seed, static_cast<std::uint64_t>(epoch),
               static_cast<std::uint64_t>(pass), static_cast<std::uint64_t>(grid_.job().rank()));
  if (halo_) halo_->begin_pass(hash_key(key, 1));
  wire_.begin_pass(hash_key(key, 2));
}

double RankTrainer::train_passes(std::int64_t epoch, const std::vector<Block>& blocks,
                                 const std::vector<int>& order, bool& skipped) {
  Parameters& parameters = stage_->parameters();
  parameters.zero_grad();
  begin_wire_passes(epoch, 0);  // before begin_epoch, which may exchange halo rows
  stage_->begin_epoch(epoch, true);
  StepValues step{last_stage(), 0, 0, {}, {}, {}};
  step.loss = forward_pass(passes(), *stage_, blocks, order, true,
                           [this](const Block& b) { return chunk_loss(b); });
  fault_point(grid_.job().rank(), epoch);
  if (!backend_all_finite(backend_, stage_->output_rows(whole_[0])))
    step.nonfinite_output_layer = output_layer_;
  if (setup_.options.stale_grad == StaleGrad::kExact)
    backward_pass(passes(), *stage_, whole_, {0});  // every row at once: nothing is stale
  else
    backward_pass(passes(), *stage_, blocks, order);
  reduce_gradients();
  if (setup_.options.diagnose) {
    const StagePasses pipe = passes();
    diagnosis_ = compare_with_exact(
        *stage_, backend_,
        {pipe, whole_, setup_.bounds[grid_.stage()], setup_.model.num_layers,
         [this](const Block& b) { return chunk_loss(b); }, [this] { reduce_gradients(); }},
        epoch);
  }
  skipped = !step_is_finite(grid_.job(), setup_.config.on_nan, epoch, step, parameters);
  if (!skipped) optimizer_.step(parameters);
  return step.loss;
}

EpochMetrics RankTrainer::epoch(std::int64_t epoch) {
  const bool exact = epoch < setup_.options.warmup_epochs || layout_.chunk_count() == 1;
  const std::vector<Block>& blocks = exact ? whole_ : layout_.chunks;
  const std::vector<int> order =
      chunk_order(setup_.options, epoch, static_cast<int>(blocks.size()));
  const ByteCounters before = grid_.counters();
  Timer timer;
  bool skipped = false;
  const double loss = train_passes(epoch, blocks, order, skipped);
  backend_.synchronize();
  const double step_s = timer.seconds();
  const double idle_s = grid_.counters().total_wait_seconds() - before.total_wait_seconds();
  std::array<double, 4> sums = evaluate(epoch);
  sums[0] = loss;
  EpochMetrics m =
      reduce_epoch_metrics(grid_.job(), epoch, sums, label_counts(last_stage(), labels_), step_s,
                           idle_s, before, grid_.counters());
  if (setup_.mode == ParallelMode::kLocal) m.comm_bytes.clear();  // one process sends nothing
  if (setup_.options.diagnose) report_diagnosis(grid_.job(), diagnosis_, m);
  if (pipelined()) {
    add_stage_times(grid_.job(), grid_.stages(), m, std::max(0.0, step_s - idle_s), idle_s);
    m.history_fraction = history_fraction(layout_, exact, order);
  }
  m.step_skipped = skipped;
  return m;
}

std::array<double, 4> RankTrainer::evaluate(std::int64_t epoch) {
  begin_wire_passes(epoch, 1);
  stage_->begin_epoch(epoch, false);
  forward_pass(passes(), *stage_, whole_, {0}, false, nullptr);
  if (setup_.options.smoothing > 0.0f) smooth_history();
  std::array<double, 4> sums{0, 0, 0, 0};
  if (!last_stage()) return sums;
  const ConstMatrixView logits = stage_->output_rows(whole_[0]);
  for (int i = 0; i < 3; ++i)
    sums[i + 1] = static_cast<double>(backend_.argmax_correct(
        logits, labels_on_backend_.labels_at(0), labels_on_backend_.mask_at(i, 0)));
  return sums;
}

EpochMetrics RankTrainer::evaluation() {
  const ByteCounters before = grid_.counters();
  EpochMetrics m =
      reduce_epoch_metrics(grid_.job(), 0, evaluate(0), label_counts(last_stage(), labels_), 0, 0,
                           before, grid_.counters());
  m.comm_bytes.clear();  // evaluation only: no training traffic to report
  return m;
}

// history = smoothing * previous + (1 - smoothing) * fresh: a blend of old and new rows
// damps the jump the history makes when the weights move quickly.
void RankTrainer::smooth_history() {
  const std::vector<kernels::Tensor*> buffers = stage_->history_buffers();
  if (previous_history_.empty()) {
    for (const kernels::Tensor* p : buffers) {
      kernels::Tensor& copy = previous_history_.emplace_back(backend_, p->rows(), p->cols());
      backend_.copy(p->view(), copy.view());
    }
    return;
  }
  const float s = setup_.options.smoothing;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const MatrixView fresh = buffers[i]->view();
    backend_.scale(fresh, 1.0f - s);
    backend_.axpy(s, previous_history_[i].view(), fresh);
    backend_.copy(fresh, previous_history_[i].view());
  }
}

void RankTrainer::save_state(SectionWriter& out) {
  out.section<GlobalId>(layout_.owned_ids());
  save_parameters(out, stage_->parameters(), optimizer_);
  save_tensors(out, backend_, stage_->carried_buffers());
  save_buffers(out, backend_, stage_->stored_buffers());
  out.value(static_cast<std::int64_t>(previous_history_.size()));
  std::vector<kernels::Tensor*> previous;
  for (kernels::Tensor& t : previous_history_) previous.push_back(&t);
  save_tensors(out, backend_, previous);
}

void RankTrainer::load_state(SectionReader& in) {
  const auto owned = in.section_up_to<GlobalId>("owned vertices", layout_.owned_ids().size());
  STRATA_REQUIRE(std::equal(owned.begin(), owned.end(), layout_.owned_ids().begin(),
                            layout_.owned_ids().end()),
                 in.source(), ": the checkpoint's rank ", grid_.job().rank(),
                 " held other vertices (another partition or chunking); resume with the same one");
  load_parameters(in, stage_->parameters(), optimizer_);
  load_tensors(in, backend_, stage_->carried_buffers());
  load_buffers(in, backend_, stage_->stored_buffers());
  const std::vector<kernels::Tensor*> history = stage_->history_buffers();
  const auto count = in.value<std::int64_t>("previous history count");
  STRATA_REQUIRE(count == 0 || count == static_cast<std::int64_t>(history.size()), in.source(),
                 ": ", count, " previous history buffers, the stage has ", history.size());
  previous_history_.clear();
  previous_history_.reserve(static_cast<std::size_t>(count));
  std::vector<kernels::Tensor*> previous;
  for (std::int64_t i = 0; i < count; ++i)
    previous.push_back(
        &previous_history_.emplace_back(backend_, history[i]->rows(), history[i]->cols()));
  load_tensors(in, backend_, previous);
}

}  // namespace strata
