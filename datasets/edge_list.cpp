// SNAP-style edge lists: '#' comments, two whitespace-separated ids a line. Ids are
// compacted to [0, N) in ascending order; features and labels are synthetic.
#include <algorithm>
#include <filesystem>

#include "gz_lines.h"
#include "synthetic.h"

namespace strata {
namespace {

// Splits on spaces and tabs; returns the number of tokens seen (at most 3 stored).
int split_whitespace(std::string_view line, std::string_view (&tokens)[3]) {
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (count < 3) tokens[count] = line.substr(start, i - start);
    ++count;
  }
  return count;
}

std::vector<Edge> read_pairs(const std::string& file) {
  detail::GzLines in(file);
  std::vector<Edge> edges;
  std::string_view line;
  while (in.next(line)) {
    std::string_view tokens[3];
    const int count = split_whitespace(line, tokens);
    if (count == 0 || tokens[0].front() == '#') continue;
    if (count != 2) in.fail("expected 2 values, found ", count);
    const auto src = detail::parse_int<GlobalId>(in, tokens[0]);
    const auto dst = detail::parse_int<GlobalId>(in, tokens[1]);
    if (src < 0 || dst < 0) in.fail("negative node id");
    edges.push_back({src, dst});
  }
  STRATA_REQUIRE(!edges.empty(), file, ":", in.line_number() + 1, ": no edges in file");
  return edges;
}

}  // namespace

Dataset load_edge_list(const std::string& file, const LoadOptions& options) {
  auto edges = read_pairs(file);
  std::vector<GlobalId> ids;
  ids.reserve(edges.size() * 2);
  for (const Edge& e : edges) {
    ids.push_back(e.src);
    ids.push_back(e.dst);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto compact = [&](GlobalId id) {
    return static_cast<GlobalId>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  for (Edge& e : edges) e = {compact(e.src), compact(e.dst)};
  const auto n = static_cast<std::int64_t>(ids.size());
  STRATA_REQUIRE(n < (std::int64_t{1} << 31), file, ": too many nodes (", n, ")");
  Dataset d;
  d.name = std::filesystem::path(file).stem().string();
  LoadOptions synthetic = options;
  synthetic.classes = static_cast<std::int32_t>(std::min<std::int64_t>(options.classes, n));
  detail::fill_labels_and_features(d, n, synthetic);
  d.adjacency = build_csr(n, edges, {!options.directed, true, true});
  detail::split_random(d, 0.1f, 0.1f, options.seed);
  return d;
}

}  // namespace strata
