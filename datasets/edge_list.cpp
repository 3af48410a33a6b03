// SNAP-style edge lists: '#' comments, two whitespace-separated ids a line. Ids are
// compacted to [0, N) in ascending order; features and labels are synthetic. The file is
// read three times (its ids; each row's entries counted; placed), holding no edge list.
#include <algorithm>
#include <filesystem>

#include "gz_lines.h"
#include "strata/graph/csr_from_entries.h"
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

// Calls pair(src, dst) for every edge line of the file, in order; comments and blank lines
// are skipped, anything else that is not two non-negative ids fails naming the line.
template <typename Pair>
void for_each_pair(const std::string& file, Pair&& pair) {
  detail::GzLines in(file);
  std::string_view line;
  bool any = false;
  while (in.next(line)) {
    std::string_view tokens[3];
    const int count = split_whitespace(line, tokens);
    if (count == 0 || tokens[0].front() == '#') continue;
    if (count != 2) in.fail("expected 2 values, found ", count);
    const auto src = detail::parse_int<GlobalId>(in, tokens[0]);
    const auto dst = detail::parse_int<GlobalId>(in, tokens[1]);
    if (src < 0 || dst < 0) in.fail("negative node id");
    pair(src, dst);
    any = true;
  }
  STRATA_REQUIRE(any, file, ":", in.line_number() + 1, ": no edges in file");
}

// Every id the file names, ascending, once: an id's position is its compacted id.
std::vector<GlobalId> node_ids(const std::string& file) {
  std::vector<GlobalId> ids;
  for_each_pair(file, [&](GlobalId src, GlobalId dst) {
    ids.push_back(src);
    ids.push_back(dst);
  });
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ids.shrink_to_fit();
  return ids;
}

// Compacted ids: a table over [min id, max id] where that span is at most 8 N (4 bytes an
// id in it), else a binary search of the ids.
class Compactor {
 public:
  explicit Compactor(const std::vector<GlobalId>& ids) : ids_(ids) {
    const auto span = static_cast<std::uint64_t>(ids.back() - ids.front()) + 1;  // ids >= 0
    if (span > 8 * static_cast<std::uint64_t>(ids.size())) return;
    table_.assign(static_cast<std::size_t>(span), 0);
    for (std::size_t i = 0; i < ids.size(); ++i)
      table_[static_cast<std::size_t>(ids[i] - ids.front())] = static_cast<LocalId>(i);
  }
  LocalId operator()(GlobalId id) const {
    if (!table_.empty()) return table_[static_cast<std::size_t>(id - ids_.front())];
    return static_cast<LocalId>(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin());
  }

 private:
  const std::vector<GlobalId>& ids_;
  std::vector<LocalId> table_;
};

// The adjacency over compacted ids, the file read once more to count each row's entries
// and once to place them (csr_from_entries): no edge list is held beside the CSR.
Csr read_adjacency(const std::string& file, const std::vector<GlobalId>& ids, bool symmetrize) {
  const Compactor compact(ids);
  const auto each_entry = [&](auto&& visit) {
    EdgeBatch batch(visit, symmetrize);
    for_each_pair(file, [&](GlobalId src, GlobalId dst) {
      if (src != dst) batch.add(compact(src), compact(dst));
    });
    batch.flush();
  };
  return csr_from_entries(static_cast<LocalId>(ids.size()), each_entry, true);
}

}  // namespace

Dataset load_edge_list(const std::string& file, const LoadOptions& options) {
  const std::vector<GlobalId> ids = node_ids(file);
  const auto n = static_cast<std::int64_t>(ids.size());
  STRATA_REQUIRE(n < (std::int64_t{1} << 31), file, ": too many nodes (", n, ")");
  Dataset d;
  d.name = std::filesystem::path(file).stem().string();
  LoadOptions synthetic = options;
  synthetic.classes = static_cast<std::int32_t>(std::min<std::int64_t>(options.classes, n));
  detail::fill_labels_and_features(d, n, synthetic);
  d.adjacency = read_adjacency(file, ids, !options.directed);
  detail::split_random(d, 0.1f, 0.1f, options.seed);
  return d;
}

}  // namespace strata
