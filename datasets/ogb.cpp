// OGB nodeproppred raw layout: DIR/raw/*.csv.gz and DIR/split/<name>/*.csv.gz.
#include <algorithm>
#include <filesystem>

#include "gz_lines.h"
#include "strata/datasets/dataset.h"
#include "strata/graph/csr_from_entries.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using detail::GzLines;

std::int64_t read_count(const std::string& path) {
  const auto values = detail::read_int_column(path);
  STRATA_REQUIRE(values.size() == 1, path, ":2: expected a single line, found ", values.size());
  STRATA_REQUIRE(values[0] >= 0, path, ":1: negative count ", values[0]);
  return values[0];
}

// Parses straight into CSR (only the non-zeros are kept: no N x F buffer is allocated),
// then keeps it sparse or densifies it by density.
FeatureMatrix read_features(const std::string& path, std::int64_t n) {
  GzLines in(path);
  std::string_view line;
  STRATA_REQUIRE(in.next(line), path, ":1: empty file");
  const std::int64_t f = std::count(line.begin(), line.end(), ',') + 1;
  if (f >= (std::int64_t{1} << 31)) in.fail("too many columns (", f, ")");
  Csr x;
  x.cols = static_cast<LocalId>(f);
  x.offsets.reserve(std::min<std::uint64_t>(n, detail::max_lines(in, 2)) + 1);
  do {
    if (static_cast<std::int64_t>(x.offsets.size()) > n)
      in.fail("more rows than num-node-list's ", n);
    const auto count = detail::for_each_token(line, [&](std::int64_t j, std::string_view t) {
      if (j >= f) return;
      const float value = detail::parse_float(in, t);
      if (value == 0.0f) return;
      x.indices.push_back(static_cast<LocalId>(j));
      x.values.push_back(value);
    });
    if (count != f) in.fail("expected ", f, " values, found ", count);
    x.offsets.push_back(static_cast<EdgeOffset>(x.indices.size()));
  } while (in.next(line));
  const auto rows = static_cast<std::int64_t>(x.offsets.size()) - 1;
  STRATA_REQUIRE(rows == n, path, ":", rows, ": expected ", n, " rows (num-node-list), found ",
                 rows);
  x.rows = static_cast<LocalId>(rows);
  return choose_storage(std::move(x));
}

// The adjacency straight from edge.csv.gz, read twice (to count each row's entries, then
// to place them: csr_from_entries), so that no edge list is held beside the CSR: decoding
// the file again costs less than a list of every edge. Self-loops are dropped; symmetrize
// adds each edge's reverse; duplicates go when the rows are sorted.
Csr read_adjacency(const std::string& path, std::int64_t n, std::int64_t e, bool symmetrize) {
  const auto each_entry = [&](auto&& visit) {
    EdgeBatch batch(visit, symmetrize);
    GzLines in(path);
    std::string_view line;
    std::int64_t edges = 0;
    while (in.next(line)) {
      GlobalId ids[2] = {0, 0};
      const auto count = detail::for_each_token(line, [&](std::int64_t j, std::string_view t) {
        if (j < 2) ids[j] = detail::parse_int<GlobalId>(in, t);
      });
      if (count != 2) in.fail("expected 2 values, found ", count);
      for (GlobalId id : ids)
        if (id < 0 || id >= n) in.fail("node id ", id, " out of range [0, ", n, ")");
      ++edges;
      if (ids[0] != ids[1]) batch.add(static_cast<LocalId>(ids[0]), static_cast<LocalId>(ids[1]));
    }
    batch.flush();
    STRATA_REQUIRE(edges > 0 || e == 0, path, ":1: empty file");
    STRATA_REQUIRE(edges == e, path, ":", in.line_number(), ": expected ", e,
                   " edges (num-edge-list), found ", edges);
  };
  return csr_from_entries(static_cast<LocalId>(n), each_entry, true);
}

std::vector<std::int32_t> read_labels(const std::string& path, std::int64_t n) {
  const auto values = detail::read_int_column(path);
  std::vector<std::int32_t> labels(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    STRATA_REQUIRE(values[i] >= 0 && values[i] < std::max<std::int64_t>(n, 1), path, ":", i + 1,
                   ": label ", values[i], " out of range [0, ", n, ")");
    labels[i] = static_cast<std::int32_t>(values[i]);
  }
  STRATA_REQUIRE(static_cast<std::int64_t>(values.size()) == n, path, ":", values.size(),
                 ": expected ", n, " labels (num-node-list), found ", values.size());
  return labels;
}

std::vector<std::uint8_t> read_mask(const std::string& path, std::int64_t n) {
  const auto ids = detail::read_int_column(path);
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    STRATA_REQUIRE(ids[i] >= 0 && ids[i] < n, path, ":", i + 1, ": node id ", ids[i],
                   " out of range [0, ", n, ")");
    mask[static_cast<std::size_t>(ids[i])] = 1;
  }
  return mask;
}

std::string choose_split(const fs::path& dir, const std::string& wanted) {
  const fs::path split_dir = dir / "split";
  STRATA_REQUIRE(fs::is_directory(split_dir), split_dir.string(), ": no such directory");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(split_dir))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  STRATA_REQUIRE(!names.empty(), split_dir.string(), ": no splits");
  if (wanted.empty()) return names.front();
  STRATA_REQUIRE(std::find(names.begin(), names.end(), wanted) != names.end(), split_dir.string(),
                 ": no split '", wanted, "' (first is '", names.front(), "')");
  return wanted;
}

}  // namespace

Dataset load_ogb(const std::string& dir, const LoadOptions& options) {
  const fs::path root(dir);
  const fs::path raw = root / "raw";
  Dataset d;
  d.name = fs::path(dir).lexically_normal().filename().string();
  if (d.name.empty()) d.name = fs::path(dir).lexically_normal().parent_path().filename().string();
  const std::int64_t n = read_count((raw / "num-node-list.csv.gz").string());
  const std::int64_t e = read_count((raw / "num-edge-list.csv.gz").string());
  STRATA_REQUIRE(n > 0 && n < (std::int64_t{1} << 31), (raw / "num-node-list.csv.gz").string(),
                 ":1: node count ", n, " out of range");
  d.features = read_features((raw / "node-feat.csv.gz").string(), n);
  d.labels = read_labels((raw / "node-label.csv.gz").string(), n);
  d.num_classes = *std::max_element(d.labels.begin(), d.labels.end()) + 1;
  d.adjacency = read_adjacency((raw / "edge.csv.gz").string(), n, e, !options.directed);
  const fs::path split = root / "split" / choose_split(root, options.split);
  d.train_mask = read_mask((split / "train.csv.gz").string(), n);
  d.val_mask = read_mask((split / "valid.csv.gz").string(), n);
  d.test_mask = read_mask((split / "test.csv.gz").string(), n);
  return d;
}

}  // namespace strata
