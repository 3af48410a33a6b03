#include "strata/trainer.h"

#include <array>

#include "conversions.h"
#include "device_run.h"
#include "strata/comm/agreed.h"
#include "strata/core/memory.h"
#include "strata/core/timer.h"
#include "strata/store/weights_file.h"
#include "strata/training/modes.h"
#include "trainer_state.h"
#include "workers_impl.h"

namespace strata {
namespace {

std::vector<Tensor> named(const ModelConfig& model, Weights flat) {
  const std::vector<TensorShape> shapes = parameter_shapes(model);
  STRATA_CHECK(shapes.size() == flat.size(), "weights ", flat.size(), " of ", shapes.size());
  std::vector<Tensor> tensors;
  for (std::size_t t = 0; t < shapes.size(); ++t)
    tensors.push_back({shapes[t].name, shapes[t].rows, shapes[t].cols, std::move(flat[t])});
  return tensors;
}

Weights flat(const std::vector<Tensor>& tensors) {
  Weights out;
  for (const Tensor& t : tensors) out.push_back(t.values);
  return out;
}

TrainingResult to_result(const TrainResult& r, double seconds) {
  TrainingResult out;
  for (const EpochMetrics& m : r.epochs) out.epochs.push_back(to_record(m));
  out.final_eval = to_record(r.final_eval);
  out.test_acc = r.test_acc;
  out.best_val_acc = r.best_val_acc;
  out.best_epoch = r.best_epoch;
  out.resumed_epochs = r.resumed_epochs;
  out.comm_bytes = r.comm_bytes;
  out.seconds = seconds;
  return out;
}

// Every mode on the CPU: this rank's predicted peak while it trains (0 on a GPU). Rank 0
// of graph mode may have peaked earlier, partitioning the whole graph.
std::int64_t memory_estimate(Communicator& comm, const Config& config, const Trainer::State& state,
                             const TrainConfig& train) {
  if (on_gpu(config)) return 0;
  if (config.mode == Mode::kLocal)
    return estimate_local_rank(state.data, train).total() + state.baseline_bytes;
  if (config.mode == Mode::kGraph)
    return estimate_graph_rank(state.shard, train).total() + state.baseline_bytes;
  const PipelineOptions options = to_pipeline_options(config.pipeline);
  if (config.mode == Mode::kPipeline)
    return estimate_pipeline_rank(state.data, train, options, comm.size(), comm.rank()).total() +
           state.baseline_bytes;
  if (config.mode != Mode::kHybrid) return 0;
  const int parts = config.hybrid.parts;
  return estimate_hybrid_rank(state.data, train, options, state.part_of, parts, comm.size() / parts,
                              comm.rank())
             .total() +
         state.baseline_bytes;
}

}  // namespace

Trainer::Trainer(Workers& workers, Config config, GraphInput graph)
    : workers_(workers), config_(std::move(config)), state_(std::make_unique<State>()) {
  load_trainer_state(communicator_of(workers_), config_, graph, *state_);
}

Trainer::~Trainer() = default;

const GraphSummary& Trainer::graph() const {
  return state_->summary;
}

std::vector<StagePlan> Trainer::stage_plan() const {
  if (config_.mode != Mode::kPipeline && config_.mode != Mode::kHybrid) return {};
  const TrainConfig train = to_train_config(config_);
  const PipelineOptions options = to_pipeline_options(config_.pipeline);
  const int parts = config_.mode == Mode::kHybrid ? config_.hybrid.parts : 1;
  const int stages = workers_.size() / parts;
  const StageBounds bounds = pipeline_stage_bounds(state_->data, train, options, stages);
  std::vector<StagePlan> plan;
  for (int s = 0; s < stages; ++s) {
    MemoryEstimate largest;
    for (int g = 0; g < parts; ++g) {
      const MemoryEstimate e =
          parts == 1 ? estimate_pipeline_rank(state_->data, train, options, stages, s)
                     : estimate_hybrid_rank(state_->data, train, options, state_->part_of, parts,
                                            stages, s * parts + g);
      if (g == 0 || e.total() > largest.total()) largest = e;
    }
    plan.push_back({bounds[s] + 1, bounds[s + 1], largest.total(), describe(largest)});
  }
  return plan;
}

TrainingResult Trainer::train(const EpochCallback& on_epoch) {
  return run(config_.optimizer.epochs, on_epoch);
}

TrainingResult Trainer::evaluate() {
  return run(0, {});
}

TrainingResult Trainer::run(int epochs, const EpochCallback& on_epoch) {
  Communicator& comm = communicator_of(workers_);
  Timer timer;
  TrainConfig train = to_train_config(config_);
  train.epochs = epochs;
  train.initial_weights = flat(weights_);
  if (epochs == 0) train.checkpoint = {};  // evaluate() neither saves nor resumes
  const std::map<std::string, std::string> formats =
      comm_formats(train.compress, gradient_type_on(config_.device.kind));
  const auto record = [&](const EpochMetrics& m) {
    EpochRecord e = to_record(m);
    if (!e.comm_bytes.empty()) e.comm_format = formats;
    return e;
  };
  const auto forward = [&](const EpochMetrics& m) {
    if (on_epoch) on_epoch(record(m));
  };
  Profile profile;
  const TrainResult r = train_on_device(comm, config_, *state_, train, forward,
                                        config_.profile.enabled ? &profile : nullptr);
  const std::int64_t estimate = memory_estimate(comm, config_, *state_, train);
  weights_ = named(state_->model, r.weights);
  TrainingResult out = to_result(r, timer.seconds());
  for (std::size_t e = 0; e < r.epochs.size(); ++e) out.epochs[e] = record(r.epochs[e]);
  if (!out.comm_bytes.empty()) out.comm_format = formats;
  out.profile = std::move(profile);
  const std::array<std::int64_t, 3> mine{estimate, peak_resident_bytes(), r.device_bytes};
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)),
                  CommCategory::kControl);
  for (std::size_t i = 0; i < all.size(); i += 3) {
    out.estimated_bytes.push_back(all[i]);
    out.peak_resident_bytes.push_back(all[i + 1]);
    if (on_gpu(config_)) out.device_bytes.push_back(all[i + 2]);
  }
  return out;
}

void Trainer::set_weights(std::vector<Tensor> weights) {
  run_agreed(communicator_of(workers_), [&] {
    const std::vector<TensorShape> shapes = parameter_shapes(state_->model);
    STRATA_REQUIRE(weights.size() == shapes.size(), "set_weights: ", weights.size(),
                   " tensors, the model has ", shapes.size());
    for (std::size_t t = 0; t < shapes.size(); ++t)
      STRATA_REQUIRE(weights[t].name == shapes[t].name && weights[t].rows == shapes[t].rows &&
                         weights[t].cols == shapes[t].cols,
                     "set_weights: tensor ", t, " is ", weights[t].name, " ", weights[t].rows,
                     " x ", weights[t].cols, ", the model's is ", shapes[t].name, " ",
                     shapes[t].rows, " x ", shapes[t].cols);
    check_weights(state_->model, flat(weights), "set_weights");
  });
  weights_ = std::move(weights);
}

void Trainer::write_weights(const std::string& path) {
  Communicator& comm = communicator_of(workers_);
  run_agreed(comm, [&] {
    STRATA_REQUIRE(!weights_.empty(), "write_weights: no weights yet (train or evaluate first)");
    if (comm.rank() == 0) write_weights_file(path, state_->model, flat(weights_));
  });
}

void Trainer::read_weights(const std::string& path) {
  Weights read;
  run_agreed(communicator_of(workers_), [&] { read = read_weights_file(path, state_->model); });
  weights_ = named(state_->model, std::move(read));
}

}  // namespace strata
