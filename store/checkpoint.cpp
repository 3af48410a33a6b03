#include "strata/store/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "strata/comm/agreed.h"
#include "strata/core/sections.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr char kManifestMagic[] = "STRATAMF";
constexpr std::uint32_t kManifestVersion = 1;
constexpr char kPrefix[] = "epoch-";

std::string key_text(const RunKey& key) {
  std::string text;
  for (const auto& [name, value] : key) text += name + "=" + value + "\n";
  return text;
}

RunKey parse_key(const std::string& text) {
  RunKey key;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) key.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return key;
}

// The first setting in which two keys differ, as "ranks: 4 there, 2 here". A setting
// recorded on one side only differs too (some are recorded only where not the default).
std::string first_difference(const RunKey& saved, const RunKey& mine) {
  const auto value_in = [](const RunKey& key, const std::string& name) -> std::string {
    auto it =
        std::find_if(key.begin(), key.end(), [&](const auto& kv) { return kv.first == name; });
    return it == key.end() ? "(not recorded)" : it->second;
  };
  for (const auto& [name, value] : mine)
    if (const std::string theirs = value_in(saved, name); theirs != value)
      return cat(name, " ", theirs, " there, ", value, " here");
  for (const auto& [name, value] : saved)
    if (const std::string ours = value_in(mine, name); ours != value)
      return cat(name, " ", value, " there, ", ours, " here");
  return "";
}

// A rename is durable once the folder that holds it is synced.
void sync_folder(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  STRATA_REQUIRE(fd >= 0, dir, ": cannot open the checkpoint folder");
  const int status = ::fsync(fd);
  ::close(fd);
  STRATA_REQUIRE(status == 0, dir, ": fsync of the checkpoint folder failed");
}

std::optional<std::int64_t> epoch_of(const std::string& name) {
  const std::string prefix = kPrefix;
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return {};
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  if (digits.size() > 12) return {};
  return std::stoll(digits);
}

// The epochs saved in dir (folders epoch-N), newest first.
std::vector<std::int64_t> list_epochs(const std::string& dir) {
  std::vector<std::int64_t> epochs;
  if (!fs::is_directory(dir)) return epochs;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (auto e = epoch_of(entry.path().filename().string()); e && entry.is_directory())
      epochs.push_back(*e);
  std::sort(epochs.rbegin(), epochs.rend());
  return epochs;
}

std::string rank_file(const std::string& folder, int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.state", rank);
  return folder + "/" + name;
}

struct Manifest {
  RunKey key;
  std::int64_t epochs_done = 0, ranks = 0;
  std::vector<std::int64_t> sizes_and_crcs;  // per rank: file size, crc32
};

Manifest read_manifest(const std::string& folder) {
  const std::string path = folder + "/MANIFEST";
  STRATA_REQUIRE(fs::exists(path), folder, " is incomplete (no MANIFEST: the run stopped while ",
                 "saving it)");
  const std::vector<std::byte> bytes = read_file(path);
  SectionReader r(bytes, path, kManifestMagic, kManifestVersion);
  Manifest m;
  const auto text = r.section_up_to<char>("run key", 1 << 16);
  m.key = parse_key(std::string(text.begin(), text.end()));
  const auto counts = r.section<std::int64_t>("epoch and ranks", 2);
  m.epochs_done = counts[0];
  m.ranks = counts[1];
  STRATA_REQUIRE(m.ranks >= 1 && m.ranks <= (1 << 20), path, ": ", m.ranks, " ranks");
  m.sizes_and_crcs = r.section<std::int64_t>("rank files", 2 * static_cast<std::uint64_t>(m.ranks));
  r.expect_end();
  return m;
}

// Every rank holds the same manifest, so every rank refuses alike.
void refuse_other_run(const Manifest& m, const std::string& dir, const RunKey& mine, int ranks) {
  const std::string difference = first_difference(m.key, mine);
  if (difference.empty() && m.ranks == ranks) return;
  throw AgreedError(
      ErrorKind::kInput,
      cat("cannot resume from ", dir, ": it was saved by another run (",
          difference.empty() ? cat("ranks ", m.ranks, " there, ", ranks, " here") : difference,
          "); resume with the settings it was saved with, or use another "
          "--checkpoint-dir"));
}

// This rank's file, if it is the one the manifest names (size and crc32).
std::vector<std::byte> verified_record(const Manifest& m, const std::string& dir, int rank) {
  const std::string path = rank_file(dir, rank);
  STRATA_REQUIRE(fs::exists(path), path, " is missing");
  std::vector<std::byte> bytes = read_file(path);
  const auto size = static_cast<std::int64_t>(bytes.size());
  const std::int64_t crc = crc32_of(bytes.data(), bytes.size());
  STRATA_REQUIRE(size == m.sizes_and_crcs[2 * rank], path, " has ", size,
                 " bytes, the manifest says ", m.sizes_and_crcs[2 * rank]);
  STRATA_REQUIRE(crc == m.sizes_and_crcs[2 * rank + 1], path,
                 " does not match its checksum in the manifest (the file is damaged)");
  return bytes;
}

}  // namespace

Checkpoints::Checkpoints(Communicator& comm, CheckpointOptions options, RunKey key)
    : comm_(comm), options_(std::move(options)), key_(std::move(key)) {
  STRATA_REQUIRE(options_.every >= 0, "--checkpoint-every must not be negative, got ",
                 options_.every);
  STRATA_REQUIRE(options_.keep >= 1, "--checkpoint-keep must be at least 1, got ", options_.keep);
  STRATA_REQUIRE(!options_.resume || enabled(), "--resume needs --checkpoint-dir");
}

bool Checkpoints::due(std::int64_t epochs_done, std::int64_t epochs) const {
  if (!enabled()) return false;
  return epochs_done == epochs || (options_.every > 0 && epochs_done % options_.every == 0);
}

std::string Checkpoints::folder(std::int64_t epochs_done) const {
  char name[32];
  std::snprintf(name, sizeof name, "%s%08lld", kPrefix, static_cast<long long>(epochs_done));
  return options_.dir + "/" + name;
}

void Checkpoints::note(const std::string& message) const {
  if (comm_.rank() == 0 && options_.on_event) options_.on_event(message);
}

void Checkpoints::save(std::int64_t epochs_done, std::span<const std::byte> record) {
  const std::string dir = folder(epochs_done);
  // An older manifest in the folder would vouch for files about to be replaced.
  run_agreed(comm_, [&] {
    if (comm_.rank() == 0) fs::remove(dir + "/MANIFEST");
  });
  run_agreed(comm_, [&] {
    fs::create_directories(dir);
    write_file_atomically(rank_file(dir, comm_.rank()), record);
  });
  const std::array<std::int64_t, 2> mine{static_cast<std::int64_t>(record.size()),
                                         crc32_of(record.data(), record.size())};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(comm_.size()));
  comm_.all_gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)),
                   CommCategory::kControl);
  run_agreed(comm_, [&] {
    if (comm_.rank() != 0) return;
    write_manifest(epochs_done, all);
    remove_old(epochs_done);
  });
  note(cat("saved checkpoint ", dir, " (", epochs_done, " epochs done)"));
}

void Checkpoints::write_manifest(std::int64_t epochs_done,
                                 const std::vector<std::int64_t>& sizes_and_crcs) {
  const std::string dir = folder(epochs_done);
  SectionWriter w(kManifestMagic, kManifestVersion);
  const std::string text = key_text(key_);
  w.section<char>(text);
  w.section<std::int64_t>(std::array<std::int64_t, 2>{epochs_done, comm_.size()});
  w.section<std::int64_t>(sizes_and_crcs);
  write_file_atomically(dir + "/MANIFEST", w.take());
  sync_folder(dir);
}

// Keeps the newest options.keep complete checkpoints up to `newest`, and drops incomplete
// folders older than it. A manifest goes first, so a half-removed folder is incomplete.
void Checkpoints::remove_old(std::int64_t newest) {
  int complete = 0;
  for (std::int64_t epoch : list_epochs(options_.dir)) {
    if (epoch > newest) continue;
    const std::string dir = folder(epoch);
    const bool has_manifest = fs::exists(dir + "/MANIFEST");
    if (has_manifest && ++complete <= options_.keep) continue;
    fs::remove(dir + "/MANIFEST");
    fs::remove_all(dir);
  }
}

// Rank 0 lists the folder (newest first) and tells the others, so all try the same ones.
std::vector<std::int64_t> Checkpoints::saved_epochs() {
  std::vector<std::int64_t> epochs;
  if (comm_.rank() == 0) epochs = list_epochs(options_.dir);
  if (comm_.size() == 1) return epochs;
  std::int64_t count = static_cast<std::int64_t>(epochs.size());
  comm_.broadcast(std::as_writable_bytes(std::span(&count, 1)), 0, CommCategory::kControl);
  epochs.resize(static_cast<std::size_t>(count));
  comm_.broadcast(std::as_writable_bytes(std::span(epochs)), 0, CommCategory::kControl);
  return epochs;
}

bool Checkpoints::attempt(const std::string& dir, const std::function<void()>& step) {
  try {
    run_agreed(comm_, step);
    return true;
  } catch (const AgreedError& e) {
    // Set aside, so that it no longer counts as one of the `keep` newest checkpoints.
    std::error_code failed;
    if (comm_.rank() == 0) fs::rename(dir, dir + ".damaged", failed);
    note(cat("skipped checkpoint ", dir, ": ", e.what(),
             failed ? "" : cat("; moved it to ", dir, ".damaged")));
    return false;
  }
}

std::optional<SavedState> Checkpoints::newest() {
  if (!options_.resume) return {};
  for (std::int64_t epoch : saved_epochs()) {
    const std::string dir = folder(epoch);
    Manifest manifest;
    std::vector<std::byte> record;
    const bool read = attempt(dir, [&] {
      manifest = read_manifest(dir);
      STRATA_REQUIRE(manifest.epochs_done == epoch, dir, "/MANIFEST: says ", manifest.epochs_done,
                     " epochs done, its folder ", epoch);
    });
    if (!read) continue;
    refuse_other_run(manifest, dir, key_, comm_.size());
    if (!attempt(dir, [&] { record = verified_record(manifest, dir, comm_.rank()); })) continue;
    note(cat("resuming from checkpoint ", dir, " (", epoch, " epochs done)"));
    return SavedState{epoch, std::move(record)};
  }
  note(cat("no complete checkpoint in ", options_.dir, "; starting from epoch 0"));
  return {};
}

}  // namespace strata
