// `strata plan` through the facade (include/strata/plan.h), as an embedding program calls it.
#include <strata/strata.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

strata::PlanRequest request(int ranks, int layers) {
  strata::PlanRequest r;
  r.cluster.ranks = ranks;
  r.model = "gcnii";
  r.layers = layers;
  r.hidden = 32;
  return r;
}

strata::DatasetOptions small() {
  strata::DatasetOptions o;
  o.nodes = 3000;
  return o;
}

std::string input_error(const strata::PlanRequest& r) {
  try {
    strata::plan_layouts("synthetic", small(), r);
  } catch (const strata::Error& e) {
    CHECK(e.kind() == strata::ErrorKind::kInput);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("plan: every layout ranked fastest first, the best allowed and fitting") {
  strata::PlanRequest r = request(4, 8);
  r.tie_margin = 0;  // the fastest allowed layout, whatever its staleness
  const strata::PlanReport p = strata::plan_layouts("synthetic", small(), r);
  // graph; pipeline 4 x 1 and hybrid 2 x 2: 4 chunk counts, exact or drop beyond one chunk
  // (7 each), all in 3 row formats.
  REQUIRE(p.layouts.size() == 3 * (1 + 7 + 7));
  for (std::size_t i = 1; i < p.layouts.size(); ++i)
    CHECK(p.layouts[i - 1].epoch_s <= p.layouts[i].epoch_s);
  REQUIRE(p.best >= 0);
  const strata::PlanLayout& best = p.layouts[static_cast<std::size_t>(p.best)];
  CHECK(best.allowed);
  CHECK(best.fits);
  CHECK(best.stale_grad == "exact");  // drop is not allowed by default
  for (int i = 0; i < p.best; ++i) CHECK_FALSE(p.layouts[static_cast<std::size_t>(i)].allowed);
  for (const strata::PlanLayout& l : p.layouts) {
    CHECK(l.epoch_s >= l.compute_s);
    CHECK(l.memory_per_rank > 0);
    CHECK((l.chunks > 1) == (l.stale_reads > 0));
    CHECK(l.command.find("--mode " + l.mode) != std::string::npos);
  }
  CHECK(p.rates.source == "measured");
}

TEST_CASE("plan: of the layouts tied with the fastest, the least stale is chosen") {
  // At 1 Mbit/s chunked pipelines are fastest, the one-chunk (exact) ones not far behind.
  strata::PlanRequest r = request(2, 8);
  r.cluster.link_bytes_per_s = 1.25e5;
  r.tie_margin = 0;
  const strata::PlanReport fastest = strata::plan_layouts("synthetic", small(), r);
  const double limit = fastest.layouts[static_cast<std::size_t>(fastest.best)].epoch_s * 1.9;
  r.tie_margin = 0.9;
  const strata::PlanReport p = strata::plan_layouts("synthetic", small(), r);
  const auto stale = [](const strata::PlanLayout& l) {
    return std::make_pair((l.stale_reads > 0) + (l.stale_grad == "drop"), l.stale_reads);
  };
  const strata::PlanLayout& chosen = p.layouts[static_cast<std::size_t>(p.best)];
  CHECK(chosen.allowed);
  CHECK(chosen.epoch_s <= limit);
  int tied = 0;
  for (int i = 0; i < static_cast<int>(p.layouts.size()); ++i) {
    const strata::PlanLayout& l = p.layouts[static_cast<std::size_t>(i)];
    if (!l.allowed || !l.fits || l.epoch_s > limit) continue;
    ++tied;
    CHECK(stale(chosen) <= stale(l));
    if (i < p.best) CHECK(stale(chosen) < stale(l));  // the fastest of the least stale
  }
  CHECK(tied > 1);
  // The fastest is stale; a one-chunk layout is tied with it and chosen.
  CHECK(fastest.layouts[static_cast<std::size_t>(fastest.best)].stale_reads > 0);
  CHECK(chosen.stale_reads == 0);
  CHECK(r.tie_margin == 0.9);
  r.tie_margin = 1.5;
  CHECK(input_error(r).find("--tie-margin") != std::string::npos);
}

// Kernel rates fixed in a --calibration file (this machine's, measured once): a choice
// between layouts predicted a few percent apart must not hang on one run's measurement.
class FixedRates {
 public:
  FixedRates() {
    std::filesystem::create_directories(dir_);
    std::ofstream(file()) << "sparse_s 8.39e-11\nfeatures_s 2.79e-11\nfeatures_grad_s 6.57e-11\n"
                             "dense_s 2.79e-11\nweight_grad_s 6.57e-11\nstream_s 3.04e-10\n"
                             "dropout_s 9.17e-10\npack_float32_s 4.99e-10\npack_bf16_s 6.33e-10\n"
                             "pack_int8_s 1.61e-09\nwire_byte_s 6.78e-10\n";
  }
  ~FixedRates() { std::filesystem::remove_all(dir_); }
  std::string file() const { return (dir_ / "rates.txt").string(); }

 private:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / "strata_test_fixed_rates";
};

TEST_CASE("plan: --allow none keeps the exact layouts, a slower link moves the choice") {
  const FixedRates rates;
  strata::PlanRequest r = request(2, 8);
  r.calibration = rates.file();
  r.allow = {"none"};
  r.cluster.link_bytes_per_s = 1e12;
  const strata::PlanReport fast = strata::plan_layouts("synthetic", small(), r);
  CHECK(fast.rates.source == rates.file());
  const strata::PlanLayout& best = fast.layouts[static_cast<std::size_t>(fast.best)];
  CHECK(best.mode == "graph");
  // At 1 Mbit/s the pipeline's N rows beat graph mode's halo at every layer, and
  // compressed rows and chunks would be faster still, but none of them is allowed.
  r.cluster.link_bytes_per_s = 1.25e5;
  const strata::PlanReport slow = strata::plan_layouts("synthetic", small(), r);
  const strata::PlanLayout& exact = slow.layouts[static_cast<std::size_t>(slow.best)];
  CHECK(exact.mode == "pipeline");
  CHECK(exact.risk == "none");
  CHECK(exact.chunks == 1);
  CHECK(exact.compress == "none");
  CHECK(exact.epoch_s > best.epoch_s);
  REQUIRE(slow.best > 0);
  CHECK(slow.layouts.front().risk != "none");
  CHECK_FALSE(slow.layouts.front().allowed);
}

TEST_CASE("plan: impossible requests are input errors that say what does not fit") {
  strata::PlanRequest r = request(4, 2);
  r.stages = 4;
  CHECK(input_error(r).find("--stages 4 is more stages than the 2 layers") != std::string::npos);
  r = request(4, 8);
  r.memory_per_rank = 1000;
  CHECK(input_error(r).find("no layout of 4 ranks fits --memory-per-rank") != std::string::npos);
  r = request(4, 8);
  r.allow = {"fast"};
  CHECK(input_error(r).find("--allow") != std::string::npos);
  r = request(0, 8);
  CHECK(input_error(r).find("--ranks") != std::string::npos);
}

TEST_CASE("plan: kernel rates are measured into --calibration once, then read back") {
  const auto dir = std::filesystem::temp_directory_path() / "strata_test_plan_rates";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "rates.txt").string();
  std::filesystem::remove(file);
  strata::PlanRequest r = request(2, 4);
  r.calibration = file;
  const strata::PlanReport first = strata::plan_layouts("synthetic", small(), r);
  CHECK(first.rates.source == "measured");
  const strata::PlanReport second = strata::plan_layouts("synthetic", small(), r);
  CHECK(second.rates.source == file);
  CHECK(second.rates.sparse_s == Approx(first.rates.sparse_s).epsilon(1e-5));
  std::ofstream(file) << "sparse_s 1e-10\ndense_s fast\n";
  CHECK(input_error(r).find(file + " line 2") != std::string::npos);
  std::ofstream(file) << "sparse_s 1e-10\n";
  CHECK(input_error(r).find("no features_s line") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("plan --simulate: a described graph on GPUs, nothing generated, rates assumed") {
  strata::PlanRequest r = request(64, 16);
  r.hidden = 128;
  r.described.nodes = 10'000'000;
  r.cluster.device = "cuda";
  r.cluster.ranks_per_host = 8;
  r.cluster.link_bytes_per_s = 50e9;        // 400 Gbit/s
  r.cluster.host_link_bytes_per_s = 900e9;  // NVLink class
  const strata::PlanReport p = strata::plan_layouts("unused", {}, r);
  CHECK(p.graph.vertices == 10'000'000);
  CHECK(p.rates.source.find("assumed") == 0);
  REQUIRE(p.best >= 0);
  // 16 layers over 64 ranks: graph, 2 x 32, 4 x 16, 8 x 8, 16 x 4 (7 each beyond graph), 3 formats.
  CHECK(p.layouts.size() == 3 * (1 + 4 * 7));
  for (const strata::PlanLayout& l : p.layouts)
    CHECK(l.command.find("--dataset") == std::string::npos);
  // A tenth of the network rate never makes an epoch faster.
  strata::PlanRequest slow = r;
  slow.cluster.link_bytes_per_s /= 10;
  const strata::PlanReport q = strata::plan_layouts("unused", {}, slow);
  CHECK(q.layouts[static_cast<std::size_t>(q.best)].epoch_s >=
        p.layouts[static_cast<std::size_t>(p.best)].epoch_s);
  r.described.cut_fraction = 2;
  CHECK(input_error(r).find("--cut-fraction") != std::string::npos);
}
