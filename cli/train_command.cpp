#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.h"

namespace strata::cli {
namespace {

class MetricsWriter {
 public:
  explicit MetricsWriter(const std::string& path) {
    if (path.empty()) return;
    out_.open(path);
    STRATA_REQUIRE(out_.good(), "--metrics: cannot open '", path, "' for writing");
  }
  void write(const nlohmann::json& j) {
    if (out_.is_open()) out_ << j.dump() << "\n" << std::flush;
  }

 private:
  std::ofstream out_;
};

nlohmann::json epoch_json(const EpochMetrics& m) {
  return {{"event", "epoch"},         {"epoch", m.epoch},     {"loss", m.loss},
          {"train_acc", m.train_acc}, {"val_acc", m.val_acc}, {"test_acc", m.test_acc},
          {"epoch_s", m.epoch_s}};
}

}  // namespace

int run_train(const TrainArgs& args) {
  const Dataset data = load_dataset(args.data.dataset, args.data.load);
  std::printf("dataset %s: %d vertices, %lld edges, %lld features, %d classes\n", data.name.c_str(),
              data.adjacency.rows, static_cast<long long>(data.adjacency.nnz()),
              static_cast<long long>(data.features.cols()), data.num_classes);
  MetricsWriter metrics(args.metrics_path);
  auto on_epoch = [&](const EpochMetrics& m) {
    std::printf("epoch %4lld  loss %.4f  train %.4f  val %.4f  %.3f s\n",
                static_cast<long long>(m.epoch), m.loss, m.train_acc, m.val_acc, m.epoch_s);
    std::fflush(stdout);
    metrics.write(epoch_json(m));
  };
  const TrainResult result = train_one_process(data, args.train, on_epoch);
  std::printf("final: test accuracy %.4f at best validation epoch %lld (val %.4f)\n",
              result.test_acc, static_cast<long long>(result.best_epoch), result.best_val_acc);
  metrics.write({{"event", "final"},
                 {"test_acc", result.test_acc},
                 {"best_val_acc", result.best_val_acc},
                 {"best_epoch", result.best_epoch}});
  return 0;
}

}  // namespace strata::cli
