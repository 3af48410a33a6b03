#include "strata/core/sections.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace strata {
namespace {

constexpr std::size_t kMagicSize = 8;

std::string padded_magic(std::string_view magic) {
  std::string m(magic.substr(0, kMagicSize));
  m.resize(kMagicSize, '\0');
  return m;
}

void write_all(int fd, std::span<const std::byte> bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), std::min<std::size_t>(bytes.size(), 1u << 30));
    if (n < 0 && errno == EINTR) continue;
    STRATA_REQUIRE(n > 0, path, ": write failed: ", std::strerror(errno));
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::uint32_t crc32_of(const void* data, std::uint64_t bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (bytes > 0) {
    const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(bytes, 1u << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    bytes -= chunk;
  }
  return static_cast<std::uint32_t>(crc);
}

void write_file_atomically(const std::string& path, std::span<const std::byte> bytes) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  STRATA_REQUIRE(fd >= 0, tmp, ": cannot open for writing: ", std::strerror(errno));
  try {
    write_all(fd, bytes, tmp);
    STRATA_REQUIRE(::fsync(fd) == 0, tmp, ": fsync failed: ", std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  STRATA_REQUIRE(std::rename(tmp.c_str(), path.c_str()) == 0, path,
                 ": cannot rename into place: ", std::strerror(errno));
}

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  STRATA_REQUIRE(in.good(), path, ": cannot open");
  std::vector<std::byte> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  STRATA_REQUIRE(in.good() || bytes.empty(), path, ": read failed");
  return bytes;
}

SectionWriter::SectionWriter(std::string_view magic, std::uint32_t version) {
  const std::string m = padded_magic(magic);
  raw(m.data(), m.size());
  raw(&version, sizeof version);
}

void SectionWriter::raw(const void* data, std::uint64_t size) {
  const auto* p = static_cast<const std::byte*>(data);
  out_.insert(out_.end(), p, p + size);
}

void SectionWriter::bytes(const void* data, std::uint64_t size) {
  const std::uint32_t crc = crc32_of(data, size);
  raw(&size, sizeof size);
  raw(data, size);
  raw(&crc, sizeof crc);
}

SectionReader::SectionReader(std::span<const std::byte> data, std::string source,
                             std::string_view magic, std::uint32_t version)
    : data_(data), source_(std::move(source)) {
  std::string m(kMagicSize, '\0');
  raw(m.data(), kMagicSize, "magic");
  STRATA_REQUIRE(m == padded_magic(magic), source_, ": not a ", magic, " record (bad magic)");
  std::uint32_t stored = 0;
  raw(&stored, sizeof stored, "version");
  STRATA_REQUIRE(stored == version, source_, ": version ", stored, ", expected ", version);
}

std::uint64_t SectionReader::next_size(const char* what) {
  std::uint64_t size = 0;
  raw(&size, sizeof size, what);
  // Checked before anything is allocated: a size cannot claim more than the record holds.
  const std::uint64_t left = data_.size() - pos_;
  STRATA_REQUIRE(size <= left && left - size >= sizeof(std::uint32_t), source_,
                 ": truncated at byte ", pos_, " (section ", what, " declares ", size,
                 " bytes and a checksum, ", left, " bytes are left)");
  return size;
}

void SectionReader::raw(void* out, std::uint64_t size, const char* what) {
  STRATA_REQUIRE(size <= data_.size() - pos_, source_, ": truncated at byte ", pos_, " (reading ",
                 what, ")");
  if (size > 0) std::memcpy(out, data_.data() + pos_, size);
  pos_ += size;
}

void SectionReader::verify(const void* data, std::uint64_t size, const char* what) {
  std::uint32_t stored = 0;
  raw(&stored, sizeof stored, what);
  STRATA_REQUIRE(crc32_of(data, size) == stored, source_, ": checksum mismatch in section ", what);
}

void SectionReader::expect_end() const {
  STRATA_REQUIRE(pos_ == data_.size(), source_, ": ", data_.size() - pos_,
                 " trailing bytes after the last section");
}

}  // namespace strata
