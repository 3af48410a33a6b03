#include "strata/dataset_tools.h"

#include <algorithm>
#include <numeric>

#include "conversions.h"
#include "strata/partition/partitioner.h"

namespace strata {
namespace {

void add_degrees(DatasetStats& s, const Csr& a) {
  if (a.rows == 0) return;
  std::vector<EdgeOffset> degree(static_cast<std::size_t>(a.rows));
  for (LocalId r = 0; r < a.rows; ++r) degree[r] = a.degree(r);
  std::sort(degree.begin(), degree.end());
  s.degree_min = degree.front();
  s.degree_median = degree[degree.size() / 2];
  s.degree_max = degree.back();
  s.degree_mean = static_cast<double>(a.nnz()) / a.rows;
  s.isolated = std::count(degree.begin(), degree.end(), 0);
}

std::int64_t count(const std::vector<std::uint8_t>& mask) {
  return std::accumulate(mask.begin(), mask.end(), std::int64_t{0});
}

}  // namespace

DatasetStats describe_dataset(const std::string& spec, const DatasetOptions& options) {
  const Dataset d = load_dataset(spec, to_load_options(options));
  DatasetStats s;
  s.summary = summarize(d);
  s.feature_nonzeros = d.features.nnz();
  add_degrees(s, d.adjacency);
  s.class_counts.assign(static_cast<std::size_t>(d.num_classes), 0);
  for (auto label : d.labels) ++s.class_counts[static_cast<std::size_t>(label)];
  s.train = count(d.train_mask);
  s.val = count(d.val_mask);
  s.test = count(d.test_mask);
  return s;
}

VertexOrder parse_vertex_order(const std::string& name) {
  if (name == "as-loaded") return VertexOrder::kAsLoaded;
  STRATA_REQUIRE(name == "rcm", "--order must be as-loaded or rcm, got '", name, "'");
  return VertexOrder::kRcm;
}

GraphSummary convert_dataset(const std::string& spec, const DatasetOptions& options,
                             const std::string& out, VertexOrder order) {
  LoadOptions raw = to_load_options(options);
  raw.binarize = false;  // the cache keeps raw features; preprocessing happens at load
  raw.row_normalize = false;
  Dataset d = load_dataset(spec, raw);
  if (order == VertexOrder::kRcm) d = renumbered(d, reverse_cuthill_mckee_order(d.adjacency));
  save_cache(d, out);
  return summarize(d);
}

}  // namespace strata
