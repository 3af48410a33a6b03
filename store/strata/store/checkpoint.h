// Checkpoints on disk: one folder per saved epoch, DIR/epoch-00000040/, holding one state
// record per rank (rank-00003.state) and a MANIFEST written last. Every file is written
// atomically (temporary file, fsync, rename); the manifest names each rank file's size and
// crc32, so a folder without a manifest is incomplete and a file that does not match it
// is corrupt. Both are reported and skipped on resume, never loaded, and renamed to
// epoch-N.damaged (kept for inspection, never loaded or removed).
//
// Every rank must see DIR (one machine, or a shared file system).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strata/comm/communicator.h"

namespace strata {

// Saving and resuming training state.
struct CheckpointOptions {
  std::string dir;      // empty: no checkpoints
  int every = 0;        // save after every N-th epoch; the last epoch is always saved
  bool resume = false;  // continue from the newest complete checkpoint in dir, if any
  int keep = 2;         // complete checkpoints kept; older ones are removed
  // Rank 0 only: one line per checkpoint event (saved, skipped, resumed from).
  std::function<void(const std::string&)> on_event;
};

// What a resumed run must share with the run that saved: mode, ranks, model, optimizer,
// data sizes, pipeline options. Key-value pairs, compared in order.
using RunKey = std::vector<std::pair<std::string, std::string>>;

// The state record a rank saved, and the number of epochs that were done when it was.
struct SavedState {
  std::int64_t epochs_done = 0;
  std::vector<std::byte> record;
};

class Checkpoints {
 public:
  // An input error for bad options (negative --checkpoint-every, --resume without a dir).
  Checkpoints(Communicator& comm, CheckpointOptions options, RunKey key);

  bool enabled() const { return !options_.dir.empty(); }
  // Whether to save once `epochs_done` of `epochs` epochs are done.
  bool due(std::int64_t epochs_done, std::int64_t epochs) const;
  // Collective. Writes every rank's record, then the manifest; removes older checkpoints
  // beyond options.keep. A failure on any rank is an error on every rank.
  void save(std::int64_t epochs_done, std::span<const std::byte> record);
  // Collective. With options.resume: this rank's record of the newest complete checkpoint
  // whose files all verify, or nothing if there is none. A checkpoint of another run (a
  // different RunKey) is an input error on every rank.
  std::optional<SavedState> newest();

 private:
  std::string folder(std::int64_t epochs_done) const;
  std::vector<std::int64_t> saved_epochs();
  void write_manifest(std::int64_t epochs_done, const std::vector<std::int64_t>& sizes_and_crcs);
  void remove_old(std::int64_t newest);
  void note(const std::string& message) const;
  // Runs step on every rank; if it fails anywhere, notes that dir is skipped and says so.
  bool attempt(const std::string& dir, const std::function<void()>& step);

  Communicator& comm_;
  CheckpointOptions options_;
  RunKey key_;
};

}  // namespace strata
