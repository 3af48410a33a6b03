#include "strata/partition/partition_file.h"

#include <charconv>
#include <fstream>
#include <string_view>

#include "strata/core/error.h"

namespace strata {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::int32_t parse_part(std::string_view line, const std::string& path, GlobalId line_no,
                        int num_parts) {
  const std::string_view token = trim(line);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  STRATA_REQUIRE(ec == std::errc() && end == token.data() + token.size() && !token.empty(),
                 path, ":", line_no, ": expected an integer part id, got '", token, "'");
  STRATA_REQUIRE(value >= 0 && value < num_parts, path, ":", line_no, ": part id ", value,
                 " outside [0, ", num_parts, ")");
  return static_cast<std::int32_t>(value);
}

void require_no_empty_part(const std::vector<std::int32_t>& parts, int num_parts,
                           const std::string& path) {
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(num_parts), 0);
  for (std::int32_t p : parts) ++sizes[p];
  for (int p = 0; p < num_parts; ++p)
    STRATA_REQUIRE(sizes[p] > 0, path, ": part ", p, " of ", num_parts, " is empty");
}

}  // namespace

void write_partition_file(const std::string& path, std::span<const std::int32_t> parts) {
  std::ofstream out(path);
  STRATA_REQUIRE(out.good(), path, ": cannot open for writing");
  for (std::int32_t p : parts) out << p << '\n';
  out.flush();
  STRATA_REQUIRE(out.good(), path, ": write failed");
}

std::vector<std::int32_t> read_partition_file(const std::string& path, GlobalId n, int num_parts) {
  STRATA_REQUIRE(num_parts >= 1, path, ": number of parts must be positive, got ", num_parts);
  std::ifstream in(path);
  STRATA_REQUIRE(in.good(), path, ": cannot open partition file");
  std::vector<std::int32_t> parts;
  parts.reserve(static_cast<std::size_t>(n));
  std::string line;
  GlobalId line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no > n) {
      STRATA_REQUIRE(trim(line).empty(), path, ":", line_no, ": more lines than the ", n,
                     " vertices of the graph");
      continue;  // trailing blank lines are harmless
    }
    parts.push_back(parse_part(line, path, line_no, num_parts));
  }
  STRATA_REQUIRE(static_cast<GlobalId>(parts.size()) == n, path, ":", line_no, ": file has ",
                 parts.size(), " lines, the graph has ", n, " vertices");
  require_no_empty_part(parts, num_parts, path);
  return parts;
}

}  // namespace strata
