// Checksummed binary records: an 8-byte magic, a version, then length-prefixed sections,
// each followed by its crc32, so a flipped, missing or extra byte is caught and named.
// Records are built in memory (to send them, or to write them to a file atomically).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/error.h"

namespace strata {

// crc32 (zlib) of any number of bytes.
std::uint32_t crc32_of(const void* data, std::uint64_t bytes);

// Writes PATH.tmp, fsyncs it and renames it over PATH: a reader never sees half a file.
void write_file_atomically(const std::string& path, std::span<const std::byte> bytes);
std::vector<std::byte> read_file(const std::string& path);

class SectionWriter {
 public:
  SectionWriter(std::string_view magic, std::uint32_t version);

  template <typename T>
  void section(std::span<const T> values) {
    bytes(values.data(), values.size_bytes());
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  void bytes(const void* data, std::uint64_t size);
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  void raw(const void* data, std::uint64_t size);
  std::vector<std::byte> out_;
};

class SectionReader {
 public:
  // `source` names the record in errors (a path, or "shard 3 from rank 0").
  SectionReader(std::span<const std::byte> data, std::string source, std::string_view magic,
                std::uint32_t version);

  // A section that must hold exactly `count` values.
  template <typename T>
  std::vector<T> section(const char* what, std::uint64_t count) {
    const std::uint64_t size = next_size(what);
    STRATA_REQUIRE(size % sizeof(T) == 0 && size / sizeof(T) == count, source_, ": section ", what,
                   " has ", size, " bytes, expected ", count, " values of ", sizeof(T), " bytes");
    return read_values<T>(what, size);
  }
  // A section of any length up to max_count values.
  template <typename T>
  std::vector<T> section_up_to(const char* what, std::uint64_t max_count) {
    const std::uint64_t size = next_size(what);
    STRATA_REQUIRE(size % sizeof(T) == 0 && size / sizeof(T) <= max_count, source_, ": section ",
                   what, " has ", size, " bytes, not a list of at most ", max_count, " values");
    return read_values<T>(what, size);
  }
  template <typename T>
  T value(const char* what) {
    return section<T>(what, 1)[0];
  }
  void expect_end() const;
  const std::string& source() const { return source_; }

 private:
  std::uint64_t next_size(const char* what);
  void raw(void* out, std::uint64_t size, const char* what);
  void verify(const void* data, std::uint64_t size, const char* what);
  template <typename T>
  std::vector<T> read_values(const char* what, std::uint64_t size) {
    std::vector<T> values(static_cast<std::size_t>(size / sizeof(T)));
    raw(values.data(), size, what);
    verify(values.data(), size, what);
    return values;
  }

  std::span<const std::byte> data_;
  std::string source_;
  std::uint64_t pos_ = 0;
};

}  // namespace strata
