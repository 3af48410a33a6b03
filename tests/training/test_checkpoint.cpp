// Checkpoints: a run stopped and resumed computes bit for bit what an uninterrupted run
// computes, in every mode; incomplete and damaged checkpoints are skipped; a checkpoint
// of another run is refused.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "graph_mode_checks.h"
#include "strata/comm/agreed.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/layers/model.h"
#include "strata/training/modes.h"

using namespace strata;
namespace fs = std::filesystem;

namespace {

struct Run {
  std::string mode = "graph";
  int ranks = 2;
  std::string model = "gcn";
  PipelineOptions pipeline;
  RowCodecs compress{};
  bool bf16 = false;  // --storage bf16: a chunked pipeline's later stages store their history
};

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("strata_ckpt_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// Every rank's result; checkpoint events land in `events` (rank 0 reports them).
std::vector<TrainResult> train(const Run& run, const Dataset& d, TrainConfig config,
                               std::vector<std::string>* events = nullptr) {
  if (events) config.checkpoint.on_event = [events](const std::string& e) { events->push_back(e); };
  config.compress = run.compress;
  if (run.bf16) config.storage = RowCodec::kBf16;
  std::vector<TrainResult> results(static_cast<std::size_t>(run.ranks));
  if (run.mode == "local") {
    results[0] = train_one_process(d, config, nullptr);
    return results;
  }
  const auto parts =
      partition_graph(d.adjacency, {.method = PartitionMethod::kMetis, .parts = run.ranks});
  run_in_process(run.ranks, [&](Communicator& comm) {
    results[comm.rank()] = run.mode == "graph"
                               ? testing::train_rank(comm, d, parts, config)
                               : train_pipeline(comm, d, config, run.pipeline, nullptr);
  });
  return results;
}

TrainConfig base_config(const std::string& model, int epochs) {
  TrainConfig c = testing::graph_mode_config(3);
  c.model = parse_model_kind(model);
  c.epochs = epochs;
  return c;
}

void check_same(const TrainResult& got, const TrainResult& want) {
  REQUIRE(!want.weights.empty());      // empty weights would compare equal
  CHECK(got.weights == want.weights);  // bit for bit
  REQUIRE(got.epochs.size() == want.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    CHECK(got.epochs[e].loss == want.epochs[e].loss);
    CHECK(got.epochs[e].val_acc == want.epochs[e].val_acc);
  }
  CHECK(got.best_epoch == want.best_epoch);
  CHECK(got.test_acc == want.test_acc);
  CHECK(got.comm_bytes == want.comm_bytes);
}

std::vector<Run> every_mode() {
  std::vector<Run> runs{
      {"local", 1, "gcn", {}}, {"graph", 2, "gcn", {}}, {"graph", 3, "gcnii", {}}};
  Run pipeline{"pipeline", 3, "gcn", {}};
  pipeline.pipeline.chunks = 3;
  pipeline.pipeline.stale_grad = StaleGrad::kDelay;  // gradient accumulators carry across epochs
  pipeline.pipeline.smoothing = 0.3f;                // and the previous history
  runs.push_back(pipeline);
  pipeline.model = "gcnii";
  pipeline.pipeline.alternate_order = true;
  runs.push_back(pipeline);
  // int8 rows round from (seed, epoch, pass, rank): a resumed run rounds as the whole one.
  const RowCodecs int8{RowCodec::kInt8, RowCodec::kInt8};
  pipeline.compress = int8;
  runs.push_back(pipeline);
  runs.push_back({"graph", 2, "gcnii", {}, int8});
  Run stored{"pipeline", 3, "gcn", {}};
  stored.pipeline.chunks = 3;
  stored.bf16 = true;
  runs.push_back(stored);
  return runs;
}

void flip_byte(const std::string& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(at);
  f.write(&c, 1);
}

bool has_event(const std::vector<std::string>& events, const std::string& text) {
  for (const std::string& e : events)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a run stopped after a checkpoint and resumed equals the uninterrupted run bit for bit") {
  const Dataset d = testing::graph_mode_dataset(false);
  for (const Run& run : every_mode()) {
    INFO(run.mode << " " << run.model << " on " << run.ranks << " ranks");
    const TrainResult reference = train(run, d, base_config(run.model, 7))[0];
    TempDir dir;
    TrainConfig first = base_config(run.model, 4);
    first.checkpoint.dir = dir.str();
    train(run, d, first);
    TrainConfig rest = base_config(run.model, 7);
    rest.checkpoint = {dir.str(), 0, true, 2, {}};
    std::vector<std::string> events;
    const std::vector<TrainResult> resumed = train(run, d, rest, &events);
    CHECK(has_event(events, "resuming from checkpoint " + dir.str() + "/epoch-00000004"));
    for (const TrainResult& r : resumed) {
      CHECK(r.resumed_epochs == 4);
      check_same(r, reference);
    }
  }
}

TEST_CASE("a damaged or incomplete newest checkpoint is skipped for the previous complete one") {
  const Dataset d = testing::graph_mode_dataset(true);
  const Run run;
  const TrainResult reference = train(run, d, base_config("gcn", 6))[0];
  TempDir dir;
  TrainConfig save = base_config("gcn", 6);
  save.checkpoint = {dir.str(), 2, false, 3, {}};
  train(run, d, save);
  const std::string e6 = dir.str() + "/epoch-00000006", e4 = dir.str() + "/epoch-00000004";
  REQUIRE(fs::exists(e6 + "/MANIFEST"));
  REQUIRE(fs::exists(dir.str() + "/epoch-00000002/MANIFEST"));
  flip_byte(e6 + "/rank-00001.state", 200);
  fs::remove(e4 + "/MANIFEST");  // as if the run died while saving epoch 4
  TrainConfig resume = save;
  resume.checkpoint.resume = true;
  std::vector<std::string> events;
  const std::vector<TrainResult> resumed = train(run, d, resume, &events);
  CHECK(has_event(events, "skipped checkpoint " + e6 + ": rank 1: " + e6 +
                              "/rank-00001.state does not match its checksum"));
  CHECK(has_event(events, e4 + " is incomplete (no MANIFEST"));
  CHECK(has_event(events, "resuming from checkpoint " + dir.str() + "/epoch-00000002"));
  CHECK(fs::exists(e6 + ".damaged"));
  for (const TrainResult& r : resumed) check_same(r, reference);
  // A damaged manifest is skipped the same way.
  flip_byte(e6 + "/MANIFEST", 40);
  events.clear();
  train(run, d, resume, &events);
  CHECK(has_event(events, "skipped checkpoint " + e6 + ": "));
  CHECK(has_event(events, "resuming from checkpoint " + dir.str() + "/epoch-00000004"));
}

TEST_CASE("a checkpoint folder whose manifest names another epoch is skipped") {
  const Dataset d = testing::graph_mode_dataset(true);
  const Run run;
  TempDir dir;
  TrainConfig save = base_config("gcn", 4);
  save.checkpoint = {dir.str(), 2, false, 3, {}};
  train(run, d, save);
  const std::string moved = dir.str() + "/epoch-00000009";
  fs::rename(dir.str() + "/epoch-00000004", moved);  // a copy put under the wrong name
  TrainConfig resume = save;
  resume.checkpoint.resume = true;
  std::vector<std::string> events;
  train(run, d, resume, &events);
  CHECK(has_event(events, moved + "/MANIFEST: says 4 epochs done, its folder 9"));
  CHECK(has_event(events, "resuming from checkpoint " + dir.str() + "/epoch-00000002"));
}

TEST_CASE("resuming with other settings is refused, a missing folder starts afresh") {
  const Dataset d = testing::graph_mode_dataset(false);
  TempDir dir;
  TrainConfig save = base_config("gcn", 2);
  save.checkpoint.dir = dir.str();
  train(Run{}, d, save);
  TrainConfig resume = save;
  resume.checkpoint.resume = true;
  resume.lr = 0.02f;
  CHECK_THROWS_WITH(train(Run{}, d, resume),
                    Catch::Contains("epoch-00000002: it was saved by another run (lr 0.01 "
                                    "there, 0.02 here)"));
  resume.lr = save.lr;
  resume.storage = RowCodec::kBf16;  // recorded only where not fp32: either way round
  CHECK_THROWS_WITH(train(Run{}, d, resume),
                    Catch::Contains("(storage (not recorded) there, bf16 here)"));
  TrainConfig bf16 = save;
  bf16.storage = RowCodec::kBf16;
  bf16.checkpoint.dir = dir.str() + "/bf16";
  train(Run{}, d, bf16);
  TrainConfig fp32 = bf16;
  fp32.storage = RowCodec::kFloat32;
  fp32.checkpoint.resume = true;
  CHECK_THROWS_WITH(train(Run{}, d, fp32),
                    Catch::Contains("(storage bf16 there, (not recorded) here)"));
  resume.storage = save.storage;
  CHECK_THROWS_WITH(train(Run{"graph", 3, "gcn", {}}, d, resume),
                    Catch::Contains("(ranks 2 there, 3 here)"));
  CHECK_THROWS_WITH(train(Run{"pipeline", 2, "gcn", {}}, d, resume),
                    Catch::Contains("(mode graph there, pipeline here)"));
  resume.epochs = 1;
  CHECK_THROWS_WITH(train(Run{}, d, resume),
                    Catch::Contains("2 epochs done, more than --epochs 1"));
  TrainConfig fresh = save;
  fresh.checkpoint = {dir.str() + "/none", 0, true, 2, {}};
  std::vector<std::string> events;
  CHECK(train(Run{}, d, fresh, &events)[0].resumed_epochs == 0);
  CHECK(has_event(events, "no complete checkpoint in " + dir.str() + "/none"));
}

TEST_CASE("only the newest `keep` checkpoints stay, bad checkpoint options are input errors") {
  const Dataset d = testing::graph_mode_dataset(false);
  TempDir dir;
  TrainConfig save = base_config("gcn", 5);
  save.checkpoint = {dir.str(), 1, false, 2, {}};
  train(Run{"local", 1, "gcn", {}}, d, save);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.str()))
    left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"epoch-00000004", "epoch-00000005"});
  const Run local{"local", 1, "gcn", {}};
  TrainConfig bad = save;
  bad.checkpoint.every = -1;
  CHECK_THROWS_WITH(train(local, d, bad),
                    Catch::Contains("--checkpoint-every must not be negative"));
  bad.checkpoint = {"", 0, true, 2, {}};
  CHECK_THROWS_WITH(train(local, d, bad), Catch::Contains("--resume needs --checkpoint-dir"));
  bad.checkpoint = {dir.str(), 0, false, 0, {}};
  CHECK_THROWS_WITH(train(local, d, bad), Catch::Contains("--checkpoint-keep must be at least 1"));
}

TEST_CASE("the same seed, data and rank count give bitwise the same run, run after run") {
  const Dataset d = testing::graph_mode_dataset(true);
  for (const Run& run : every_mode()) {
    INFO(run.mode << " " << run.model << " on " << run.ranks << " ranks");
    const TrainConfig config = base_config(run.model, 5);
    const std::vector<TrainResult> first = train(run, d, config);
    const std::vector<TrainResult> second = train(run, d, config);
    for (std::size_t r = 0; r < first.size(); ++r) check_same(second[r], first[r]);
    TrainConfig reseeded = config;
    reseeded.seed = 1;
    CHECK(train(run, d, reseeded)[0].weights != first[0].weights);  // the check can fail
  }
}
