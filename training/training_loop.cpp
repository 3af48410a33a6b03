#include "strata/training/training_loop.h"

#include <array>

#include "strata/layers/model.h"
#include "strata/training/training_common.h"

namespace strata {
namespace {

constexpr char kStateMagic[] = "STRATACK";
constexpr std::uint32_t kStateVersion = 2;
constexpr std::size_t kRecordFields = 10;

std::array<double, kRecordFields> fields_of(const EpochMetrics& m) {
  return {static_cast<double>(m.epoch),
          m.loss,
          m.train_acc,
          m.val_acc,
          m.test_acc,
          m.epoch_s,
          m.compute_s,
          m.comm_s,
          m.history_fraction,
          m.step_skipped ? 1.0 : 0.0};
}

// A count saved as a double (an epoch number); the range check keeps the cast defined.
std::int64_t saved_count(double value, const char* what, const std::string& source) {
  STRATA_REQUIRE(
      value >= 0 && value <= 1e15 && value == static_cast<double>(static_cast<std::int64_t>(value)),
      source, ": ", what, " is ", value, ", not an epoch number");
  return static_cast<std::int64_t>(value);
}

EpochMetrics metrics_of(const double* f, const std::string& source) {
  EpochMetrics m;
  m.epoch = saved_count(f[0], "an epoch record's epoch", source);
  m.loss = f[1];
  m.train_acc = f[2];
  m.val_acc = f[3];
  m.test_acc = f[4];
  m.epoch_s = f[5];
  m.compute_s = f[6];
  m.comm_s = f[7];
  m.history_fraction = f[8];
  m.step_skipped = f[9] != 0.0;
  return m;
}

// The result so far: best epoch, byte totals, and each epoch's scalar metrics (per-stage
// times and per-epoch bytes are not kept).
void save_progress(SectionWriter& out, const TrainResult& r) {
  out.section<double>(
      std::array<double, 3>{r.best_val_acc, r.test_acc, static_cast<double>(r.best_epoch)});
  std::string names;
  std::vector<std::int64_t> bytes;
  for (const auto& [name, count] : r.comm_bytes) {
    names += name + "\n";
    bytes.push_back(count);
  }
  out.section<char>(names);
  out.section<std::int64_t>(bytes);
  std::vector<double> records;
  for (const EpochMetrics& m : r.epochs)
    for (double f : fields_of(m)) records.push_back(f);
  out.section<double>(records);
}

void load_progress(SectionReader& in, std::int64_t epochs_done, TrainResult& r) {
  const auto best = in.section<double>("best epoch", 3);
  r.best_val_acc = best[0];
  r.test_acc = best[1];
  r.best_epoch = saved_count(best[2], "the best epoch", in.source());
  const auto names = in.section_up_to<char>("byte counter names", 1 << 16);
  std::vector<std::string> split(1);
  for (char c : names) {
    if (c == '\n')
      split.emplace_back();
    else
      split.back().push_back(c);
  }
  split.pop_back();
  const auto bytes = in.section<std::int64_t>("byte counters", split.size());
  for (std::size_t i = 0; i < split.size(); ++i) r.comm_bytes[split[i]] = bytes[i];
  const auto records =
      in.section<double>("epoch records", static_cast<std::uint64_t>(epochs_done) * kRecordFields);
  for (std::size_t e = 0; e < static_cast<std::size_t>(epochs_done); ++e)
    r.epochs.push_back(metrics_of(&records[e * kRecordFields], in.source()));
}

std::vector<std::byte> state_record(Communicator& comm, std::int64_t epochs_done,
                                    const TrainResult& result, EpochTrainer& trainer) {
  SectionWriter out(kStateMagic, kStateVersion);
  out.section<std::int64_t>(std::array<std::int64_t, 3>{epochs_done, comm.rank(), comm.size()});
  save_progress(out, result);
  trainer.save_state(out);
  return out.take();
}

// The epoch to continue from; fills in the result so far.
std::int64_t restore(Communicator& comm, const SavedState& saved, const TrainConfig& config,
                     EpochTrainer& trainer, TrainResult& result) {
  SectionReader in(saved.record, cat(config.checkpoint.dir, " rank ", comm.rank()), kStateMagic,
                   kStateVersion);
  const auto head = in.section<std::int64_t>("epoch and rank", 3);
  STRATA_REQUIRE(head[0] == saved.epochs_done && head[1] == comm.rank() && head[2] == comm.size(),
                 in.source(), ": the record is of rank ", head[1], " of ", head[2], " after ",
                 head[0], " epochs, not where its manifest puts it");
  STRATA_REQUIRE(saved.epochs_done <= config.epochs, "the newest checkpoint in ",
                 config.checkpoint.dir, " has ", saved.epochs_done,
                 " epochs done, more than --epochs ", config.epochs);
  load_progress(in, saved.epochs_done, result);
  trainer.load_state(in);
  in.expect_end();
  return saved.epochs_done;
}

}  // namespace

RunKey base_run_key(const char* mode, int ranks, const TrainConfig& c, const std::string& dataset,
                    std::int64_t vertices, std::int64_t features, std::int32_t classes) {
  RunKey key{{"mode", mode},
             {"ranks", cat(ranks)},
             {"dataset", dataset},
             {"vertices", cat(vertices)},
             {"features", cat(features)},
             {"classes", cat(classes)},
             {"model", model_kind_name(c.model)},
             {"layers", cat(c.layers)},
             {"hidden", cat(c.hidden)},
             {"dropout", cat(c.dropout)},
             {"alpha", cat(c.alpha)},
             {"lambda", cat(c.lambda)},
             {"lr", cat(c.lr)},
             {"weight_decay", cat(c.weight_decay)},
             {"seed", cat(c.seed)},
             {"compress",
              cat(row_codec_name(c.compress.forward), ",", row_codec_name(c.compress.backward))}};
  // Stored aggregations change the arithmetic; fp32 (the default) is left out of the key,
  // so that checkpoints written before the option existed still resume.
  if (c.storage != RowCodec::kFloat32) key.emplace_back("storage", row_codec_name(c.storage));
  if (c.learn_eps) key.emplace_back("eps_learnable", "1");
  if (c.model == ModelKind::kGat) {
    key.emplace_back("heads", cat(c.heads, ",", c.output_heads));
    key.emplace_back("attention_dropout", cat(c.attention_dropout));
  }
  return key;
}

TrainResult run_training(Communicator& comm, const TrainConfig& config, RunKey key,
                         EpochTrainer& trainer, const EpochCallback& on_epoch) {
  Checkpoints checkpoints(comm, config.checkpoint, std::move(key));
  TrainResult result;
  std::int64_t first = 0;
  if (std::optional<SavedState> saved = checkpoints.newest())
    first = restore(comm, *saved, config, trainer, result);
  result.resumed_epochs = first;
  for (std::int64_t epoch = first; epoch < config.epochs; ++epoch) {
    const EpochMetrics m = trainer.epoch(epoch);
    record_epoch(result, m);
    for (const auto& [name, bytes] : m.comm_bytes) result.comm_bytes[name] += bytes;
    if (on_epoch) on_epoch(m);
    if (checkpoints.due(epoch + 1, config.epochs))
      checkpoints.save(epoch + 1, state_record(comm, epoch + 1, result, trainer));
  }
  if (!result.epochs.empty()) {
    result.final_eval = result.epochs.back();
  } else {
    result.final_eval = trainer.evaluation();
    result.test_acc = result.final_eval.test_acc;
    result.best_val_acc = result.final_eval.val_acc;
  }
  result.weights = trainer.weights();
  return result;
}

}  // namespace strata
