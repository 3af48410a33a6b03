// Modes pipeline and hybrid on the CPU backend (what --device cuda runs, with only the
// table of operations swapped) against the host stages: one chunk is exact against one
// process, and with several chunks the backend tracks the host pipeline epoch by epoch,
// history and all. Gradients are summed in float there (double on the host), so close,
// not equal; the bytes are equal, but for the all-reduce of float gradients (half).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "backend_checks.h"
#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/pipeline/backend_pipeline.h"
#include "strata/pipeline/pipeline_trainer.h"

using namespace strata;
using testing::check_bytes;
using testing::check_close;
using testing::check_weights_close;

namespace {

PartitionOptions parts_of(int parts) {
  return {.method = PartitionMethod::kMetis, .parts = parts};
}

// Every rank's result of a stages x parts job (parts = 0: pipeline mode), host or backend.
std::vector<TrainResult> run(bool on_backend, int stages, int parts, const Dataset& d,
                             const TrainConfig& c, const PipelineOptions& o) {
  const int ranks = stages * std::max(parts, 1);
  const auto part_of = hybrid_partition(d, parts_of(std::max(parts, 1)));
  const auto backend = kernels::make_cpu_backend();
  std::vector<TrainResult> results(static_cast<std::size_t>(ranks));
  run_in_process(ranks, [&](Communicator& comm) {
    TrainResult& r = results[comm.rank()];
    if (parts == 0)
      r = on_backend ? train_pipeline_on_backend(comm, *backend, nullptr, d, c, o, nullptr)
                     : train_pipeline(comm, d, c, o, nullptr);
    else
      r = on_backend ? train_hybrid_on_backend(comm, *backend, nullptr, d, c, o, parts_of(parts),
                                               part_of, nullptr)
                     : train_hybrid(comm, d, c, o, parts_of(parts), part_of, nullptr);
  });
  return results;
}

}  // namespace

TEST_CASE("backend pipeline mode with one chunk is exact on 1 to 4 stages") {
  for (const char* model : {"gcn", "gcnii"})
    for (bool sparse : {false, true}) {
      const Dataset d = testing::graph_mode_dataset(sparse);
      TrainConfig config = testing::graph_mode_config(4);
      config.model = model;
      const TrainResult reference = train_one_process(d, config, nullptr);
      PipelineOptions options;
      options.chunks = 1;
      for (int stages = 1; stages <= 4; ++stages) {
        INFO(model << ", " << (sparse ? "sparse" : "dense") << ", " << stages << " stages");
        const auto host = run(false, stages, 0, d, config, options);
        const auto got = run(true, stages, 0, d, config, options);
        for (int s = 0; s < stages; ++s) {
          check_close(got[s], reference, 1e-4);
          check_bytes(got[s], host[s]);
          check_weights_close(got[s], reference);
        }
      }
    }
}

TEST_CASE("chunked backend pipeline tracks the host pipeline under every history option") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (const char* model : {"gcn", "gcnii"}) {
    TrainConfig config = testing::graph_mode_config(4);
    config.model = model;
    PipelineOptions base;
    base.chunks = 4;
    PipelineOptions delay = base, smooth = base, warm = base;
    delay.stale_grad = "delay";
    smooth.smoothing = 0.5f;
    smooth.alternate_order = true;
    warm.warmup_epochs = 2;
    for (const PipelineOptions& o : {base, delay, smooth, warm})
      for (int stages : {2, 3}) {
        INFO(model << ", " << stages << " stages, stale " << o.stale_grad << ", smoothing "
                   << o.smoothing << ", warm-up " << o.warmup_epochs);
        const auto host = run(false, stages, 0, d, config, o);
        const auto got = run(true, stages, 0, d, config, o);
        for (int s = 0; s < stages; ++s) {
          check_close(got[s], host[s], 1e-4);
          check_bytes(got[s], host[s]);
          check_weights_close(got[s], host[s]);
        }
        CHECK(got[0].epochs.back().history_fraction > 0);
      }
  }
}

TEST_CASE("backend hybrid mode matches the host hybrid on 2 stages x 2 parts") {
  for (const char* model : {"gcn", "gcnii"})
    for (int chunks : {1, 3, -3}) {  // -3: three chunks, delayed stale gradients
      INFO(model << ", " << chunks << " chunks");
      const Dataset d = testing::graph_mode_dataset(true);
      TrainConfig config = testing::graph_mode_config(4);
      config.model = model;
      PipelineOptions options;
      options.chunks = std::abs(chunks);
      if (chunks < 0) options.stale_grad = "delay";
      const auto host = run(false, 2, 2, d, config, options);
      const auto got = run(true, 2, 2, d, config, options);
      for (std::size_t r = 0; r < got.size(); ++r) {
        check_close(got[r], host[r], 1e-4);
        check_bytes(got[r], host[r]);
        check_weights_close(got[r], host[r]);
      }
      if (chunks == 1) check_close(got[0], train_one_process(d, config, nullptr), 1e-4);
    }
}

TEST_CASE("a backend pipeline run resumed from a checkpoint ends with the uninterrupted weights") {
  const Dataset d = testing::graph_mode_dataset(false);
  TrainConfig config = testing::graph_mode_config(3);
  PipelineOptions options;
  options.chunks = 3;
  options.stale_grad = "delay";  // the delayed gradients are carried too
  options.smoothing = 0.3f;      // and the smoothing's previous history
  const auto whole = run(true, 2, 0, d, config, options);
  const std::string dir = "backend_pipeline_checkpoints";
  std::filesystem::remove_all(dir);
  config.checkpoint.dir = dir;
  config.checkpoint.every = 1;
  config.epochs = 3;
  run(true, 2, 0, d, config, options);
  config.epochs = 6;
  config.checkpoint.resume = true;
  const auto resumed = run(true, 2, 0, d, config, options);
  std::filesystem::remove_all(dir);
  CHECK(resumed[0].resumed_epochs == 3);
  CHECK(resumed[0].weights == whole[0].weights);
  CHECK(resumed[1].weights == whole[1].weights);
}
