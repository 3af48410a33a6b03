// Streaming line reader over gzip (or plain) text files, with file:line error messages.
#pragma once
#include <zlib.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/error.h"

namespace strata::detail {

class GzLines {
 public:
  explicit GzLines(std::string path);
  ~GzLines();
  GzLines(const GzLines&) = delete;
  GzLines& operator=(const GzLines&) = delete;

  // The next line without its newline; false at end of file. Blank lines that end the file
  // (a newline too many) are not lines, as pandas reads them; a blank line with a line
  // after it is returned empty, for the caller to name.
  bool next(std::string_view& line);
  std::int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw_input_error(path_, ":", line_number_, ": ", parts...);
  }

 private:
  void refill();
  bool only_blank_left();  // peeks: newlines and carriage returns up to the end
  void start_read();       // decompresses the next chunk on another thread

  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  std::vector<char> spare_;
  std::future<int> pending_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::int64_t line_number_ = 0;
};

template <typename Int>
Int parse_int(const GzLines& in, std::string_view token) {
  Int value{};
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || ptr != token.data() + token.size() || token.empty())
    in.fail("not an integer: '", token, "'");
  return value;
}

inline float parse_float(const GzLines& in, std::string_view token) {
  if (token == "0.0" || token == "0") return 0.0f;  // the common case in sparse features
  float value = 0.0f;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || ptr != token.data() + token.size() || token.empty())
    in.fail("not a number: '", token, "'");
  if (!std::isfinite(value)) in.fail("non-finite value: '", token, "'");
  return value;
}

// Calls on_token(index, token) for each comma-separated token; returns the count.
template <typename OnToken>
std::int64_t for_each_token(std::string_view line, OnToken&& on_token) {
  std::int64_t index = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    std::size_t stop = comma == std::string_view::npos ? line.size() : comma;
    on_token(index++, line.substr(start, stop - start));
    if (comma == std::string_view::npos) return index;
    start = comma + 1;
  }
}

// The most lines of at least min_line_bytes (newline included) that the file can hold
// once decompressed (deflate expands at most 1032:1). A count that a file declares sizes a
// reservation only up to this, so a wrong count cannot allocate more than the data fills.
std::uint64_t max_lines(const GzLines& in, std::uint64_t min_line_bytes);

// A file of one integer a line (labels, split ids, counts).
std::vector<std::int64_t> read_int_column(const std::string& path);

}  // namespace strata::detail
