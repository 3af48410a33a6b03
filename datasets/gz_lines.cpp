#include "gz_lines.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace strata::detail {

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 22;
}

GzLines::GzLines(std::string path) : path_(std::move(path)), buffer_(kChunk), spare_(kChunk) {
  STRATA_REQUIRE(std::filesystem::is_regular_file(path_), path_, ": no such file");
  file_ = gzopen(path_.c_str(), "rb");
  STRATA_REQUIRE(file_ != nullptr, path_, ": cannot open");
  gzbuffer(file_, 1u << 20);
  start_read();
}

GzLines::~GzLines() {
  if (pending_.valid()) pending_.wait();
  if (file_ != nullptr) gzclose(file_);
}

void GzLines::start_read() {
  pending_ = std::async(std::launch::async, [this] {
    return gzread(file_, spare_.data(), static_cast<unsigned>(spare_.size()));
  });
}

void GzLines::refill() {
  std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  const int got = pending_.get();
  int code = Z_OK;
  const char* message = gzerror(file_, &code);
  // A truncated stream reads as a short read with Z_BUF_ERROR at the end.
  if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
    throw_input_error(path_, ":", line_number_ + 1, ": corrupt or truncated gzip (", message, ")");
  const auto size = static_cast<std::size_t>(got);
  if (end_ + size > buffer_.size()) buffer_.resize(end_ + size);
  std::memcpy(buffer_.data() + end_, spare_.data(), size);
  end_ += size;
  if (got == 0)
    eof_ = true;
  else
    start_read();
}

bool GzLines::only_blank_left() {
  std::size_t offset = 0;  // past begin_, which refill() moves
  while (true) {
    for (; begin_ + offset < end_; ++offset) {
      const char c = buffer_[begin_ + offset];
      if (c != '\n' && c != '\r') return false;
    }
    if (eof_) {
      begin_ = end_;
      return true;
    }
    refill();
  }
}

bool GzLines::next(std::string_view& line) {
  while (true) {
    const char* start = buffer_.data() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    if (newline != nullptr || (eof_ && begin_ < end_)) {
      const char* stop = newline ? static_cast<const char*>(newline) : buffer_.data() + end_;
      std::size_t length = static_cast<std::size_t>(stop - start);
      begin_ += length + (newline ? 1 : 0);
      if (length > 0 && start[length - 1] == '\r') --length;
      if (length == 0 && only_blank_left()) return false;
      line = std::string_view(start, length);
      ++line_number_;
      return true;
    }
    if (eof_) return false;
    refill();
  }
}

std::uint64_t max_lines(const GzLines& in, std::uint64_t min_line_bytes) {
  constexpr std::uint64_t kMaxDeflateRatio = 1032;
  const std::uint64_t bytes = std::filesystem::file_size(in.path());
  return std::min(bytes, UINT64_MAX / kMaxDeflateRatio) * kMaxDeflateRatio / min_line_bytes + 1;
}

std::vector<std::int64_t> read_int_column(const std::string& path) {
  GzLines in(path);
  std::vector<std::int64_t> values;
  std::string_view line;
  while (in.next(line)) {
    if (line.empty()) in.fail("empty line, expected one integer");
    if (line.find(',') != std::string_view::npos) in.fail("expected 1 value, found more");
    values.push_back(parse_int<std::int64_t>(in, line));
  }
  STRATA_REQUIRE(!values.empty(), path, ":1: empty file");
  return values;
}

}  // namespace strata::detail
