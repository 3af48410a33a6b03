// Config::profile through the facade: every operation of the steady epochs timed and
// costed, the floors drawn from the roofline file, and training unchanged by it.
#include <strata/strata.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

strata::Config profiled_config(const std::string& roofline) {
  strata::Config c;
  c.mode = strata::Mode::kLocal;
  c.model.kind = "gcnii";
  c.model.layers = 4;
  c.model.hidden = 16;
  c.optimizer.epochs = 3;
  c.seed = 3;
  c.profile.enabled = !roofline.empty();
  c.profile.roofline = roofline;
  return c;
}

struct Run {
  strata::TrainingResult result;
  std::vector<strata::Tensor> weights;
};

Run train(const strata::Config& c) {
  strata::Workers single = strata::Workers::single();
  strata::DatasetOptions d;
  d.nodes = 1500;
  d.features = 24;
  d.classes = 4;
  strata::Trainer trainer(single, c, strata::GraphInput::dataset("synthetic", d));
  strata::TrainingResult r = trainer.train();
  return {std::move(r), trainer.weights()};
}

const strata::OpLine* find(const strata::Profile& p, const std::string& name) {
  const auto it = std::find_if(p.ops.begin(), p.ops.end(),
                               [&](const strata::OpLine& op) { return op.op == name; });
  return it == p.ops.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("Config::profile: each operation per steady epoch, floored, and training unchanged") {
  const std::string path = "test_profile.roofline";
  {
    std::ofstream out(path);
    // 1e10 bytes per second from memory, faster from the caches.
    out << "# test rates\nstream_1MiB_bytes_per_s 8e10\nstream_4MiB_bytes_per_s 4e10\n"
           "stream_16MiB_bytes_per_s 2e10\nstream_64MiB_bytes_per_s 1e10\n"
           "stream_512MiB_bytes_per_s 1e10\ngather_bytes_per_s 4e10\ngemm_flops_per_s 2e10\n";
  }
  const Run plain = train(profiled_config(""));
  const Run profiled = train(profiled_config(path));
  CHECK(plain.result.profile.ops.empty());
  REQUIRE(plain.weights.size() == profiled.weights.size());
  for (std::size_t t = 0; t < plain.weights.size(); ++t)
    CHECK(plain.weights[t].values == profiled.weights[t].values);

  const strata::Profile& p = profiled.result.profile;
  CHECK(p.epochs == 2);  // the first epoch (allocation, upload) is left out
  CHECK(p.roofline.source == path);
  REQUIRE(p.roofline.stream.size() == 5);
  CHECK(p.roofline.stream.back().bytes_per_s == 1e10);
  for (const char* name : {"spmm", "gemm", "weight_gradient", "optimizer", "loss", "dropout"})
    CHECK(find(p, name) != nullptr);
  // Adam steps every parameter once per epoch: each read and written with its two moments,
  // its gradient read.
  double parameters = 0;
  for (const strata::Tensor& t : plain.weights) parameters += static_cast<double>(t.values.size());
  REQUIRE(find(p, "optimizer") != nullptr);
  CHECK(find(p, "optimizer")->bytes == 7 * 4 * parameters);
  double seconds = 0, floors = 0;
  for (const strata::OpLine& op : p.ops) {
    CAPTURE(op.op);
    CHECK(op.calls > 0);
    // Each call's floor is the largest of its traffic at the rate of its working set
    // (between the memory's 1e10 and the smallest cache's 8e10), its gathers (at most the
    // gather rate 4e10, at least the memory's) and its arithmetic; summed over the calls,
    // between these bounds.
    const double arithmetic = op.flops / 2e10;
    CHECK(op.floor_s >=
          std::max({op.bytes / 8e10, op.gather_bytes / 4e10, arithmetic}) * (1 - 1e-9));
    CHECK(op.floor_s <= (op.bytes / 1e10 + op.gather_bytes / 1e10 + arithmetic) * (1 + 1e-9));
    seconds += op.seconds, floors += op.floor_s;
  }
  CHECK(std::is_sorted(p.ops.begin(), p.ops.end(),
                       [](const auto& a, const auto& b) { return a.seconds > b.seconds; }));
  CHECK(p.floor_s == Approx(floors));
  CHECK(seconds <= p.epoch_s);
  CHECK(p.other_s == Approx(p.epoch_s - seconds - p.comm_wait_s).margin(1e-9));
  std::remove(path.c_str());
}

TEST_CASE("Config::profile: a malformed roofline file is an input error naming its line") {
  const std::string path = "test_profile_bad.roofline";
  {
    std::ofstream out(path);
    out << "stream_1MiB_bytes_per_s 1e10\ngather_bytes_per_s fast\n";
  }
  try {
    train(profiled_config(path));
    FAIL("no error");
  } catch (const strata::Error& e) {
    CHECK(e.kind() == strata::ErrorKind::kInput);
    CHECK(std::string(e.what()).find(path + " line 2") != std::string::npos);
  }
  std::remove(path.c_str());
}
