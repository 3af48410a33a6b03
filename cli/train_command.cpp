// `strata train`: one process (--mode local), or one rank of an MPI job (graph, pipeline,
// hybrid).
#include <cstdio>

#include "commands.h"
#include "metrics_output.h"

namespace strata::cli {
namespace {

// A check every rank makes alike, so every rank throws it and none needs aborting.
class EveryRankError : public Error {
 public:
  using Error::Error;
  bool every_rank() const override { return true; }
};

void print_graph(const GraphSummary& g) {
  std::printf(
      "dataset %s: %lld vertices, %lld edges, %lld features (%s, density %.4f), %d classes\n",
      g.name.c_str(), static_cast<long long>(g.vertices), static_cast<long long>(g.edges),
      static_cast<long long>(g.features), g.sparse_features ? "sparse" : "dense", g.feature_density,
      g.classes);
}

void print_stage_plan(const Trainer& trainer) {
  const std::vector<StagePlan> plan = trainer.stage_plan();
  for (std::size_t s = 0; s < plan.size(); ++s)
    std::printf("stage %zu: layers %d-%d, memory estimate %s\n", s, plan[s].first_layer,
                plan[s].last_layer, plan[s].estimate_detail.c_str());
}

// Each rank's peak resident memory; next to it the estimate where there is one (local,
// pipeline and hybrid mode on the CPU), or on a GPU the GPU memory in use.
void print_memory(const TrainingResult& r) {
  for (std::size_t p = 0; p < r.peak_resident_bytes.size(); ++p) {
    const auto peak = static_cast<double>(r.peak_resident_bytes[p]);
    const auto estimate = static_cast<double>(r.estimated_bytes[p]);
    if (p < r.device_bytes.size())
      std::printf("memory, rank %zu: peak resident %.1f MB, GPU memory in use %.1f MB\n", p,
                  peak / 1e6, static_cast<double>(r.device_bytes[p]) / 1e6);
    else if (estimate > 0)
      std::printf(
          "memory, rank %zu: peak resident %.1f MB, estimated %.1f MB with the process baseline "
          "(measured/estimate %.2f)\n",
          p, peak / 1e6, estimate / 1e6, peak / estimate);
    else
      std::printf("memory, rank %zu: peak resident %.1f MB\n", p, peak / 1e6);
  }
}

GraphInput graph_input(const TrainArgs& a) {
  if (!a.shards.empty()) return GraphInput::shard_files(a.shards);
  return GraphInput::dataset(a.data.dataset, a.data.load);
}

// Printed once, before any parallel work: what each rank runs on.
void set_threads(Workers& workers, int requested) {
  const ThreadChoice t = set_rank_threads(workers, requested);
  if (workers.rank() != 0) return;
  const std::string count =
      t.min_threads == t.max_threads
          ? std::to_string(t.threads)
          : std::to_string(t.min_threads) + " to " + std::to_string(t.max_threads);
  std::printf("threads: %s per rank (%s)\n", count.c_str(), t.reason.c_str());
  std::fflush(stdout);
}

int train_on(Workers& workers, TrainArgs a) {
  const bool lead = workers.rank() == 0;
  set_threads(workers, a.threads);
  MetricsOutput out(lead ? a.metrics_path : std::string(), lead, a.config.checkpoint.resume);
  if (a.config.mode == Mode::kPipeline && a.stages != 0 && a.stages != workers.size())
    throw EveryRankError(ErrorKind::kInput,
                         "--stages " + std::to_string(a.stages) + " but the job has " +
                             std::to_string(workers.size()) + " ranks (one stage per rank)");
  const int parts = a.config.hybrid.parts;
  if (a.config.mode == Mode::kHybrid && a.stages != 0 &&
      (parts < 1 || a.stages * parts != workers.size()))
    throw EveryRankError(ErrorKind::kInput, "--stages " + std::to_string(a.stages) + " x --parts " +
                                                std::to_string(parts) + " but the job has " +
                                                std::to_string(workers.size()) + " ranks");
  a.config.checkpoint.on_event = [](const std::string& event) {
    std::printf("checkpoint: %s\n", event.c_str());
    std::fflush(stdout);
  };
  Trainer trainer(workers, a.config, graph_input(a));
  if (lead) print_graph(trainer.graph());
  if (lead) print_stage_plan(trainer);
  if (!a.load_weights.empty()) trainer.read_weights(a.load_weights);
  const TrainingResult result = trainer.train([&](const EpochRecord& m) { out.epoch(m); });
  if (!a.save_weights.empty()) trainer.write_weights(a.save_weights);
  out.finish(result);
  if (lead) print_memory(result);
  if (lead && !a.save_weights.empty()) std::printf("wrote weights to %s\n", a.save_weights.c_str());
  return 0;
}

int exit_status(const Error& e) {
  return e.kind() == ErrorKind::kInput ? 2 : 1;
}

}  // namespace

int run_train(const TrainArgs& args) {
  return_freed_arrays_promptly();  // peaks as estimated
  TrainArgs a = args;
  a.config.mode = parse_mode(args.mode);
  require(a.shards.empty() || a.config.mode == Mode::kGraph, "--shards is for --mode graph");
  if (a.config.mode == Mode::kLocal) {
    Workers single = Workers::single();
    return train_on(single, a);
  }
  MpiRuntime mpi(nullptr, nullptr);
  Workers workers = Workers::mpi();
  try {
    return train_on(workers, a);
  } catch (const Error& e) {
    // A setup error every rank holds: rank 0 reports it and all exit alike. Anything
    // else ends the whole job from the rank that saw it.
    if (!e.every_rank()) workers.abort(e.what());
    if (workers.rank() == 0) std::fprintf(stderr, "strata: error: %s\n", e.what());
    return exit_status(e);
  } catch (const std::bad_alloc&) {
    workers.abort(kOutOfMemory);
  } catch (const std::exception& e) {
    workers.abort(e.what());
  }
}

}  // namespace strata::cli
