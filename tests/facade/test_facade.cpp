// The public facade, used as an embedding program uses it: this file includes only
// <strata/strata.h> and links only strata::strata.
#include <sched.h>
#include <strata/strata.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>

namespace {

// A symmetric graph: a ring plus chords v <-> 7v mod n; labels follow v mod 3 with noisy
// features. Built for the rows of one rank (v = rank, rank + ranks, ...) or all of them.
struct Rows {
  std::vector<std::int64_t> offsets{0}, neighbors, ids;
  std::vector<float> features;
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> train, val, test;
};

constexpr std::int64_t kN = 211;

std::vector<std::int64_t> neighbours_of(std::int64_t v) {
  std::vector<std::int64_t> out{(v + 1) % kN, (v + kN - 1) % kN, (7 * v) % kN};
  for (std::int64_t u = 0; u < kN; ++u)  // the chords' reverse edges
    if ((7 * u) % kN == v) out.push_back(u);
  return out;
}

Rows make_rows(int rank, int ranks) {
  Rows r;
  for (std::int64_t v = rank; v < kN; v += ranks) {
    for (std::int64_t u : neighbours_of(v)) r.neighbors.push_back(u);
    r.offsets.push_back(static_cast<std::int64_t>(r.neighbors.size()));
    r.ids.push_back(v);
    for (int f = 0; f < 5; ++f)
      r.features.push_back(f == v % 3 ? 1.0f : static_cast<float>((v * 31 + f * 17) % 10) / 20.0f);
    r.labels.push_back(static_cast<std::int32_t>(v % 3));
    r.train.push_back(v % 2 == 0);
    r.val.push_back(v % 4 == 1);
    r.test.push_back(v % 4 == 3);
  }
  return r;
}

strata::GraphSpans spans_of(const Rows& r, bool per_rank) {
  strata::GraphSpans s;
  s.offsets = r.offsets;
  s.neighbors = r.neighbors;
  s.features = r.features;
  s.feature_count = 5;
  s.labels = r.labels;
  s.class_count = 3;
  s.train_mask = r.train;
  s.val_mask = r.val;
  s.test_mask = r.test;
  if (per_rank) s.row_ids = r.ids;
  s.vertices = kN;
  return s;
}

strata::Config small_config(strata::Mode mode) {
  strata::Config c;
  c.mode = mode;
  c.model.layers = 3;
  c.model.hidden = 8;
  c.optimizer.epochs = 5;
  c.seed = 4;
  c.pipeline.chunks = 1;
  return c;
}

struct Trained {
  strata::TrainingResult result;
  std::vector<strata::Tensor> weights;
};

Trained train_local(const strata::Config& c) {
  strata::Workers single = strata::Workers::single();
  const Rows whole = make_rows(0, 1);
  strata::Trainer trainer(single, c, strata::GraphInput::spans(spans_of(whole, false)));
  strata::TrainingResult r = trainer.train();
  return {std::move(r), trainer.weights()};
}

// Rank 0's result of a job of `ranks` threads; Catch2 is not thread-safe, so the
// threads only store results.
Trained train_job(const strata::Config& c, int ranks, bool per_rank) {
  Trained out;
  strata::Workers::run_threads(ranks, [&](strata::Workers& w) {
    const Rows rows = per_rank ? make_rows(w.rank(), w.size()) : make_rows(0, 1);
    strata::Trainer trainer(w, c, strata::GraphInput::spans(spans_of(rows, per_rank)));
    strata::TrainingResult r = trainer.train();
    if (w.rank() == 0) out = {std::move(r), trainer.weights()};
  });
  return out;
}

// The largest difference between two sets of weights, which must both hold every tensor:
// an empty set would compare equal to anything.
double max_difference(const std::vector<strata::Tensor>& a, const std::vector<strata::Tensor>& b) {
  REQUIRE(!a.empty());
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t t = 0; t < a.size(); ++t) {
    REQUIRE(!a[t].values.empty());
    REQUIRE(a[t].name == b[t].name);
    REQUIRE(a[t].values.size() == b[t].values.size());
    for (std::size_t i = 0; i < a[t].values.size(); ++i)
      worst = std::max(worst, static_cast<double>(std::abs(a[t].values[i] - b[t].values[i])));
  }
  return worst;
}

void check_same_training(const strata::TrainingResult& a, const strata::TrainingResult& b) {
  REQUIRE(a.epochs.size() == b.epochs.size());
  for (std::size_t e = 0; e < a.epochs.size(); ++e)
    CHECK(std::abs(a.epochs[e].loss - b.epochs[e].loss) <= 1e-5 * std::abs(b.epochs[e].loss));
  CHECK(a.final_eval.val_acc == Approx(b.final_eval.val_acc).margin(0.01));
}

std::string error_of(const strata::Config& c, int ranks,
                     const std::function<strata::GraphSpans(const Rows&, int)>& spans) {
  try {
    strata::Workers::run_threads(ranks, [&](strata::Workers& w) {
      const Rows rows = make_rows(w.rank(), w.size());
      strata::Trainer trainer(w, c, strata::GraphInput::spans(spans(rows, w.rank())));
    });
  } catch (const strata::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("graph mode from per-rank rows or the whole graph, and pipeline mode, match local") {
  const Trained local = train_local(small_config(strata::Mode::kLocal));
  REQUIRE(local.result.epochs.size() == 5);
  REQUIRE(local.weights.size() == 6);
  CHECK(local.weights[0].name == "conv1.weight");
  CHECK(local.weights[0].rows == 5);
  for (int ranks : {1, 2, 4}) {
    INFO(ranks << " ranks");
    for (bool per_rank : {true, false}) {
      INFO((per_rank ? "per-rank rows" : "whole graph"));
      const Trained graph = train_job(small_config(strata::Mode::kGraph), ranks, per_rank);
      check_same_training(graph.result, local.result);
      CHECK(max_difference(graph.weights, local.weights) < 1e-4);
      if (ranks > 1) CHECK(graph.result.comm_bytes.at("halo_fwd") > 0);
    }
    const Trained pipeline =
        train_job(small_config(strata::Mode::kPipeline), std::min(ranks, 3), false);
    check_same_training(pipeline.result, local.result);
    CHECK(max_difference(pipeline.weights, local.weights) < 1e-4);
  }
}

TEST_CASE("hybrid mode with one chunk matches local, its stage plan covers every layer") {
  const Trained local = train_local(small_config(strata::Mode::kLocal));
  for (int parts : {2, 4}) {  // 2 x 2 and 1 x 4 (S = 4 would need 4 layers)
    INFO(parts << " parts, 4 ranks");
    strata::Config c = small_config(strata::Mode::kHybrid);
    c.hybrid.parts = parts;
    const Trained hybrid = train_job(c, 4, false);
    check_same_training(hybrid.result, local.result);
    CHECK(max_difference(hybrid.weights, local.weights) < 1e-4);
    CHECK(hybrid.result.comm_bytes.at("halo_fwd") > 0);
    CHECK((parts == 4 || hybrid.result.comm_bytes.at("stage_fwd") > 0));
    CHECK(hybrid.result.estimated_bytes.size() == 4);
  }
  strata::Config c = small_config(strata::Mode::kHybrid);
  std::vector<strata::StagePlan> plan;
  strata::Workers::run_threads(4, [&](strata::Workers& w) {
    strata::Trainer trainer(w, c, strata::GraphInput::spans(spans_of(make_rows(0, 1), false)));
    if (w.rank() == 0) plan = trainer.stage_plan();
  });
  REQUIRE(plan.size() == 2);
  CHECK(plan[0].first_layer == 1);
  CHECK(plan[1].last_layer == 3);
  CHECK(plan[1].first_layer == plan[0].last_layer + 1);
  CHECK(plan[0].estimated_bytes > 0);
}

TEST_CASE("weights written in one mode are read and evaluated in another") {
  const std::string path = "test_facade.weights";
  const Trained local = train_local(small_config(strata::Mode::kLocal));
  {
    strata::Workers single = strata::Workers::single();
    const Rows whole = make_rows(0, 1);
    strata::Trainer trainer(single, small_config(strata::Mode::kLocal),
                            strata::GraphInput::spans(spans_of(whole, false)));
    CHECK(trainer.weights().empty());
    trainer.set_weights(local.weights);
    trainer.write_weights(path);
  }
  strata::TrainingResult evaluated;
  std::vector<strata::Tensor> read;
  strata::Workers::run_threads(2, [&](strata::Workers& w) {
    const Rows rows = make_rows(w.rank(), w.size());
    strata::Trainer trainer(w, small_config(strata::Mode::kGraph),
                            strata::GraphInput::spans(spans_of(rows, true)));
    trainer.read_weights(path);
    strata::TrainingResult r = trainer.evaluate();
    if (w.rank() == 0) {
      evaluated = std::move(r);
      read = trainer.weights();
    }
  });
  CHECK(max_difference(read, local.weights) == 0.0);
  CHECK(evaluated.epochs.empty());
  CHECK(evaluated.final_eval.train_acc == Approx(local.result.final_eval.train_acc).margin(1e-9));
  CHECK(evaluated.final_eval.test_acc == Approx(local.result.final_eval.test_acc).margin(1e-9));
  strata::Config wider = small_config(strata::Mode::kLocal);
  wider.model.hidden = 9;
  strata::Workers single = strata::Workers::single();
  const Rows whole = make_rows(0, 1);
  strata::Trainer other(single, wider, strata::GraphInput::spans(spans_of(whole, false)));
  CHECK_THROWS_WITH(other.read_weights(path),
                    Catch::Contains("hidden 8") && Catch::Contains("this model is a gcn"));
  CHECK_THROWS_WITH(
      other.set_weights(local.weights),
      Catch::Contains("tensor 0 is conv1.weight 5 x 8, the model's is conv1.weight 5 x 9"));
  std::remove(path.c_str());
}

TEST_CASE("bad graphs and configs are one-line errors on every rank") {
  const strata::Config graph = small_config(strata::Mode::kGraph);
  const auto per_rank = [](const Rows& r, int) { return spans_of(r, true); };
  CHECK(error_of(graph, 2, per_rank) == "no error");

  // Rank 1 drops its last neighbour: that edge's reverse on another rank is unmatched.
  std::vector<Rows> damaged(2);  // one per rank thread
  const auto one_way = [&](const Rows& r, int rank) {
    Rows& d = damaged[static_cast<std::size_t>(rank)];
    d = r;
    if (rank == 1) {
      d.neighbors.pop_back();
      d.offsets.back() -= 1;
    }
    return spans_of(d, true);
  };
  CHECK_THAT(error_of(graph, 2, one_way), Catch::Contains("has no reverse edge"));

  const auto twice = [&](const Rows& r, int rank) {  // both ranks claim rank 0's rows
    static const Rows zero = make_rows(0, 2);
    (void)r;
    (void)rank;
    return spans_of(zero, true);
  };
  CHECK_THAT(error_of(graph, 2, twice), Catch::Contains("is given by rank 0 and by rank 1"));

  std::vector<Rows> relabelled(2);
  const auto bad_label = [&](const Rows& r, int rank) {
    Rows& d = relabelled[static_cast<std::size_t>(rank)];
    d = r;
    d.labels[2] = 3;
    return spans_of(d, true);
  };
  CHECK_THAT(error_of(graph, 2, bad_label), Catch::Contains("label 3 of row 2 outside [0, 3)"));

  strata::Config local = small_config(strata::Mode::kLocal);
  CHECK_THAT(error_of(local, 2, per_rank), Catch::Contains("mode local runs on one rank"));
  strata::Config deep = small_config(strata::Mode::kPipeline);
  deep.model.layers = 1;
  CHECK_THAT(error_of(deep, 2, [](const Rows&, int) { return spans_of(make_rows(0, 1), false); }),
             Catch::Contains("needs at least 2 layers"));
  CHECK_THAT(error_of(small_config(strata::Mode::kPipeline), 2, per_rank),
             Catch::Contains("one shard per rank"));
  strata::Config hybrid = small_config(strata::Mode::kHybrid);
  hybrid.hybrid.parts = 2;
  const auto whole = [](const Rows&, int) { return spans_of(make_rows(0, 1), false); };
  CHECK_THAT(
      error_of(hybrid, 3, whole),
      Catch::Contains("hybrid mode with --parts 2 needs a multiple of 2 ranks, the job has 3"));
  hybrid.hybrid.parts = 0;
  CHECK_THAT(error_of(hybrid, 2, whole), Catch::Contains("--parts must be at least 1, got 0"));
}

TEST_CASE("Config::checkpoint: a job stopped early resumes to the uninterrupted job's weights") {
  const std::string dir = "/tmp/strata_facade_ckpt_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  for (strata::Mode mode : {strata::Mode::kGraph, strata::Mode::kPipeline}) {
    strata::Config c = small_config(mode);
    c.optimizer.epochs = 6;
    const Trained uninterrupted = train_job(c, 2, false);
    strata::Config first = c;
    first.optimizer.epochs = 3;
    first.checkpoint.dir = dir + "/" + strata::mode_name(mode);
    train_job(first, 2, false);
    strata::Config rest = c;
    rest.checkpoint = first.checkpoint;
    rest.checkpoint.resume = true;
    std::vector<std::string> events;
    rest.checkpoint.on_event = [&](const std::string& e) { events.push_back(e); };
    const Trained resumed = train_job(rest, 2, false);
    INFO(strata::mode_name(mode));
    CHECK(resumed.result.resumed_epochs == 3);
    CHECK(resumed.result.epochs.size() == 6);
    CHECK(max_difference(resumed.weights, uninterrupted.weights) == 0.0);
    REQUIRE(events.size() == 2);
    CHECK(events[0] ==
          "resuming from checkpoint " + first.checkpoint.dir + "/epoch-00000003 (3 epochs done)");
    CHECK(events[1] ==
          "saved checkpoint " + first.checkpoint.dir + "/epoch-00000006 (6 epochs done)");
  }
  std::filesystem::remove_all(dir);
}

namespace {

int cores_in_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  return CPU_COUNT(&set);
}

// OMP_NUM_THREADS as the test found it, put back when the case ends.
struct SavedOmpThreads {
  SavedOmpThreads() {
    if (const char* v = std::getenv("OMP_NUM_THREADS")) value = v;
    unsetenv("OMP_NUM_THREADS");
  }
  ~SavedOmpThreads() {
    if (value)
      setenv("OMP_NUM_THREADS", value->c_str(), 1);
    else
      unsetenv("OMP_NUM_THREADS");
  }
  std::optional<std::string> value;
};

}  // namespace

TEST_CASE("threads per rank: a share of the mask's cores, OMP_NUM_THREADS, or as requested") {
  const SavedOmpThreads saved;
  const int cores = cores_in_mask();
  strata::Workers single = strata::Workers::single();
  const strata::ThreadChoice alone = strata::set_rank_threads(single);
  CHECK(alone.threads == cores);
  CHECK(alone.min_threads == cores);
  CHECK(alone.reason.find("shared by 1 rank on this host") != std::string::npos);
  // OpenBLAS built with OpenMP follows omp_set_num_threads down but not back up from 1:
  // the choice must raise it too.
  for (int requested : {1, 3, 1, 2}) {
    const strata::ThreadChoice t = strata::set_rank_threads(single, requested);
    CHECK(t.threads == requested);
    CHECK(t.reason == "--threads " + std::to_string(requested));
    if (t.blas_threads != 0) CHECK(t.blas_threads == requested);  // 0: not OpenBLAS
  }
  setenv("OMP_NUM_THREADS", "1", 1);
  CHECK(strata::set_rank_threads(single).reason == "OMP_NUM_THREADS=1");
  unsetenv("OMP_NUM_THREADS");
  std::mutex m;
  std::vector<strata::ThreadChoice> ranks;
  strata::Workers::run_threads(2, [&](strata::Workers& w) {
    const strata::ThreadChoice t = strata::set_rank_threads(w);
    const std::lock_guard lock(m);
    ranks.push_back(t);
  });
  REQUIRE(ranks.size() == 2);
  for (const auto& t : ranks) {
    CHECK(t.threads == std::max(1, cores / 2));
    CHECK(t.max_threads == t.threads);
  }
  CHECK_THROWS_WITH(strata::set_rank_threads(single, -1), Catch::Contains("--threads"));
}
