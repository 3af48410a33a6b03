// The small pipeline job that fuzz_checkpoint resumes and fuzz_seeds saves: one rank, one
// stage, two chunks and delayed stale gradients, so that a rank's state record holds
// weights, Adam moments, progress, historical embeddings and delayed gradients.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "strata/comm/in_process_communicator.h"
#include "strata/core/sections.h"
#include "strata/datasets/dataset.h"
#include "strata/training/modes.h"

namespace strata::fuzz {

constexpr int kSavedEpochs = 2;
constexpr char kSavedFolder[] = "epoch-00000002";

inline const Dataset& checkpoint_dataset() {
  static const Dataset data = [] {
    LoadOptions options;
    options.nodes = 12;
    options.avg_degree = 3;
    options.features = 4;
    options.classes = 2;
    return make_sbm(options);
  }();
  return data;
}

// Trains `epochs` epochs with checkpoints in dir, resuming from the newest there if asked.
inline TrainResult run_checkpointed_job(const std::string& dir, int epochs, bool resume) {
  TrainConfig config;
  config.layers = 2;
  config.hidden = 4;
  config.epochs = epochs;
  config.checkpoint.dir = dir;
  config.checkpoint.every = 1;
  config.checkpoint.resume = resume;
  PipelineOptions options;
  options.chunks = 2;
  options.chunking = PartitionMethod::kRange;
  options.stale_grad = StaleGrad::kDelay;
  const auto comm = make_solo_communicator();
  return train_pipeline(*comm, checkpoint_dataset(), config, options, {});
}

// A manifest like the one Checkpoints writes (store/checkpoint.cpp): the run key, the
// epochs done and rank count, then each rank file's size and crc32.
inline std::vector<std::byte> make_manifest(const std::string& key_text,
                                            const std::vector<std::byte>& rank_file) {
  SectionWriter w("STRATAMF", 1);
  w.section<char>(key_text);
  w.section<std::int64_t>(std::vector<std::int64_t>{kSavedEpochs, 1});
  w.section<std::int64_t>(std::vector<std::int64_t>{static_cast<std::int64_t>(rank_file.size()),
                                                    crc32_of(rank_file.data(), rank_file.size())});
  return w.take();
}

// The run key text of a manifest that Checkpoints wrote.
inline std::string manifest_key_text(const std::vector<std::byte>& manifest) {
  SectionReader r(manifest, "MANIFEST", "STRATAMF", 1);
  const auto text = r.section_up_to<char>("run key", 1 << 16);
  return {text.begin(), text.end()};
}

}  // namespace strata::fuzz
