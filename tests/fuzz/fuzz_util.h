// Shared by the fuzz targets. Each target writes its input to a file in a scratch
// directory unique to this process and calls a real reader on it. An input error
// (strata::Error of kind kInput) is the right answer to a bad file; anything else is a
// finding: a crash, a sanitizer report, an internal error (a failed STRATA_CHECK means
// the reader let bad input through to code that trusts it), any other exception, a hang
// or a huge allocation (scripts/fuzz.sh sets the time and memory limits).
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/sections.h"
#include "strata/error.h"

namespace strata::fuzz {

namespace fs = std::filesystem;

// $TMPDIR/strata-fuzz-<pid>, made on first use and removed at a normal exit.
class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("strata-fuzz-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline const fs::path& scratch() {
  static const ScratchDir dir;
  return dir.path();
}

inline void write_bytes(const fs::path& path, const void* data, std::size_t size) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.good()) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// Writes the input to scratch()/name and returns the path.
inline std::string input_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const fs::path path = scratch() / name;
  write_bytes(path, data, size);
  return path.string();
}

// The input with every section's crc32 recomputed, for the checksummed formats (an
// 8-byte magic and a 4-byte version, then sections of a uint64 size, the payload and its
// crc32; core/sections.h). A mutated input rarely keeps its checksums right, so the
// targets read both the input and this copy to get past the checksums to the sizes and
// values behind them. Stops at the first section that does not fit.
inline std::vector<std::uint8_t> with_fixed_checksums(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> out(data, data + size);
  std::size_t pos = 12;
  while (pos <= size && size - pos >= sizeof(std::uint64_t) + sizeof(std::uint32_t)) {
    std::uint64_t length = 0;
    std::memcpy(&length, out.data() + pos, sizeof length);
    pos += sizeof length;
    if (length > size - pos - sizeof(std::uint32_t)) break;
    const std::uint32_t crc = crc32_of(out.data() + pos, length);
    pos += static_cast<std::size_t>(length);
    std::memcpy(out.data() + pos, &crc, sizeof crc);
    pos += sizeof crc;
  }
  return out;
}

// Calls read(path) on the input as it is, then on with_fixed_checksums if that differs.
template <typename Read>
void read_with_and_without_checksums(const std::string& name, const std::uint8_t* data,
                                     std::size_t size, Read&& read) {
  read(input_file(name, data, size));
  const std::vector<std::uint8_t> fixed = with_fixed_checksums(data, size);
  if (!std::equal(fixed.begin(), fixed.end(), data)) read(input_file(name, fixed.data(), size));
}

// Runs a reader: an input error is expected, an internal error is a finding. With
// STRATA_FUZZ_PRINT=1 each outcome is printed (to see why seeds or regressions fail).
template <typename Read>
void expect_input_errors_only(Read&& read) {
  static const bool print = std::getenv("STRATA_FUZZ_PRINT") != nullptr;
  try {
    read();
    if (print) std::fprintf(stderr, "fuzz: accepted\n");
  } catch (const Error& e) {
    if (print) std::fprintf(stderr, "fuzz: %s\n", e.what());
    if (e.kind() == ErrorKind::kInput) return;
    std::fprintf(stderr, "fuzz: internal error on input: %s\n", e.what());
    std::abort();
  }
}

}  // namespace strata::fuzz
