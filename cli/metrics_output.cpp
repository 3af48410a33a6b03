#include "metrics_output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "profile_output.h"

namespace strata::cli {
namespace {

std::int64_t total(const std::map<std::string, std::int64_t>& bytes) {
  std::int64_t sum = 0;
  for (const auto& [name, value] : bytes)
    if (name != "eval") sum += value;
  return sum;
}

nlohmann::json epoch_json(const EpochRecord& m) {
  nlohmann::json j = {{"event", "epoch"},         {"epoch", m.epoch},     {"loss", m.loss},
                      {"train_acc", m.train_acc}, {"val_acc", m.val_acc}, {"test_acc", m.test_acc},
                      {"epoch_s", m.epoch_s}};
  if (m.step_skipped) j["step_skipped"] = true;
  if (m.comm_bytes.empty()) return j;
  j["compute_s"] = m.compute_s;
  j["comm_s"] = m.comm_s;
  j["comm_overlap_s"] = m.comm_overlap_s;
  j["comm_bytes"] = m.comm_bytes;
  j["comm_format"] = m.comm_format;
  if (!m.stage_compute_s.empty()) {
    j["stage_compute_s"] = m.stage_compute_s;
    j["stage_idle_s"] = m.stage_idle_s;
    j["history_fraction"] = m.history_fraction;
  }
  if (!m.layer_error.empty()) {
    j["gradient_cosine"] = m.gradient_cosine;
    j["exact_loss"] = m.exact_loss;
    j["layer_error"] = m.layer_error;
  }
  return j;
}

}  // namespace

MetricsOutput::MetricsOutput(const std::string& path, bool print, bool append) : print_(print) {
  if (path.empty()) return;
  file_.open(path, append ? std::ios::app : std::ios::trunc);
  require(file_.good(), "--metrics: cannot open '" + path + "' for writing");
}

void MetricsOutput::write(const std::string& line) {
  if (file_.is_open()) file_ << line << "\n" << std::flush;
}

void MetricsOutput::epoch(const EpochRecord& m) {
  write(epoch_json(m).dump());
  if (!print_) return;
  std::printf("epoch %4lld  loss %.4f  train %.4f  val %.4f  %.3f s",
              static_cast<long long>(m.epoch), m.loss, m.train_acc, m.val_acc, m.epoch_s);
  if (!m.comm_bytes.empty())
    std::printf("  (comm %.3f s, %.2f MB sent)", m.comm_s,
                static_cast<double>(total(m.comm_bytes)) / 1e6);
  if (m.step_skipped) std::printf("  step skipped: NaN or inf (--on-nan skip-step)");
  std::printf("\n");
  std::fflush(stdout);
}

void MetricsOutput::finish(const TrainingResult& r) {
  nlohmann::json j = {{"event", "final"},
                      {"test_acc", r.test_acc},
                      {"best_val_acc", r.best_val_acc},
                      {"best_epoch", r.best_epoch},
                      {"final_train_acc", r.final_eval.train_acc},
                      {"final_val_acc", r.final_eval.val_acc},
                      {"final_test_acc", r.final_eval.test_acc},
                      {"seconds", r.seconds}};
  if (!r.comm_bytes.empty()) j["comm_bytes"] = r.comm_bytes;
  if (!r.comm_format.empty()) j["comm_format"] = r.comm_format;
  if (!r.peak_resident_bytes.empty()) j["peak_resident_bytes"] = r.peak_resident_bytes;
  if (!r.estimated_bytes.empty()) j["estimated_bytes"] = r.estimated_bytes;
  if (!r.device_bytes.empty()) j["device_bytes"] = r.device_bytes;
  if (r.profile.epochs > 0) write(profile_json(r.profile).dump());
  write(j.dump());
  if (!print_) return;
  print_profile(r.profile);
  if (r.epochs.empty()) {
    const EpochRecord& e = r.final_eval;
    std::printf("evaluation (no training): train %.4f  val %.4f  test %.4f\n", e.train_acc,
                e.val_acc, e.test_acc);
    return;
  }
  std::printf("final: test accuracy %.4f at best validation epoch %lld (val %.4f)\n", r.test_acc,
              static_cast<long long>(r.best_epoch), r.best_val_acc);
  if (r.comm_bytes.empty()) return;
  std::printf("bytes sent, all epochs, summed over ranks:");
  for (const auto& [name, bytes] : r.comm_bytes)
    if (bytes > 0) std::printf("  %s %.2f MB", name.c_str(), static_cast<double>(bytes) / 1e6);
  std::printf("\n");
}

}  // namespace strata::cli
