#include "spans_input.h"

#include <cmath>

#include "strata/core/error.h"

namespace strata {
namespace {

std::int64_t row_count(const GraphSpans& s) {
  STRATA_REQUIRE(!s.offsets.empty() && s.offsets.front() == 0 &&
                     s.offsets.back() == static_cast<std::int64_t>(s.neighbors.size()),
                 "graph spans: offsets must run from 0 to the neighbor count ", s.neighbors.size(),
                 " (rows + 1 entries)");
  return static_cast<std::int64_t>(s.offsets.size()) - 1;
}

Matrix copy_features(const GraphSpans& s, std::int64_t rows) {
  STRATA_REQUIRE(s.feature_count >= 1, "graph spans: feature_count must be at least 1, got ",
                 s.feature_count);
  STRATA_REQUIRE(static_cast<std::int64_t>(s.features.size()) == rows * s.feature_count,
                 "graph spans: ", s.features.size(),
                 " feature values, expected rows x features = ", rows, " x ", s.feature_count);
  Matrix x(rows, s.feature_count);
  for (std::size_t i = 0; i < s.features.size(); ++i) {
    STRATA_REQUIRE(std::isfinite(s.features[i]), "graph spans: feature ", i % s.feature_count,
                   " of row ", i / s.feature_count, " is not finite");
    x.storage()[i] = s.features[i];
  }
  return x;
}

void check_labels_and_masks(const GraphSpans& s, std::int64_t rows) {
  STRATA_REQUIRE(s.class_count >= 1, "graph spans: class_count must be at least 1, got ",
                 s.class_count);
  STRATA_REQUIRE(static_cast<std::int64_t>(s.labels.size()) == rows,
                 "graph spans: ", s.labels.size(), " labels for ", rows, " rows");
  for (std::size_t i = 0; i < s.labels.size(); ++i)
    STRATA_REQUIRE(s.labels[i] >= 0 && s.labels[i] < s.class_count, "graph spans: label ",
                   s.labels[i], " of row ", i, " outside [0, ", s.class_count, ")");
  for (const auto& [name, mask] : {std::pair{"train_mask", s.train_mask},
                                   {"val_mask", s.val_mask},
                                   {"test_mask", s.test_mask}}) {
    STRATA_REQUIRE(static_cast<std::int64_t>(mask.size()) == rows, "graph spans: ", name, " has ",
                   mask.size(), " entries for ", rows, " rows");
    for (std::size_t i = 0; i < mask.size(); ++i)
      STRATA_REQUIRE(mask[i] <= 1, "graph spans: ", name, "[", i, "] is ", int{mask[i]},
                     ", not 0 or 1");
  }
}

}  // namespace

Dataset dataset_from_spans(const GraphSpans& s) {
  const std::int64_t rows = row_count(s);
  STRATA_REQUIRE(s.vertices == 0 || s.vertices == rows, "graph spans: vertices is ", s.vertices,
                 " but the whole graph has ", rows, " rows (per-rank rows need row_ids)");
  std::vector<Edge> edges;
  edges.reserve(s.neighbors.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    STRATA_REQUIRE(s.offsets[r] <= s.offsets[r + 1], "graph spans: offsets decrease at row ", r);
    for (std::int64_t e = s.offsets[r]; e < s.offsets[r + 1]; ++e)
      edges.push_back({r, s.neighbors[static_cast<std::size_t>(e)]});
  }
  Dataset d;
  d.name = s.name;
  d.adjacency = build_csr(rows, edges, BuildOptions{});
  d.features = choose_storage(copy_features(s, rows));
  check_labels_and_masks(s, rows);
  d.labels.assign(s.labels.begin(), s.labels.end());
  d.num_classes = s.class_count;
  d.train_mask.assign(s.train_mask.begin(), s.train_mask.end());
  d.val_mask.assign(s.val_mask.begin(), s.val_mask.end());
  d.test_mask.assign(s.test_mask.begin(), s.test_mask.end());
  return d;
}

ShardRows shard_rows_from_spans(const GraphSpans& s) {
  const std::int64_t rows = row_count(s);
  STRATA_REQUIRE(static_cast<std::int64_t>(s.row_ids.size()) == rows,
                 "graph spans: ", s.row_ids.size(), " row ids for ", rows, " rows");
  STRATA_REQUIRE(s.vertices >= 1,
                 "graph spans: per-rank rows need vertices, the whole graph's "
                 "vertex count");
  check_labels_and_masks(s, rows);
  ShardRows r;
  r.name = s.name;
  r.global_nodes = s.vertices;
  r.num_classes = s.class_count;
  r.ids.assign(s.row_ids.begin(), s.row_ids.end());
  r.offsets.assign(s.offsets.begin(), s.offsets.end());
  r.neighbors.assign(s.neighbors.begin(), s.neighbors.end());
  r.features = copy_features(s, rows);
  r.labels.assign(s.labels.begin(), s.labels.end());
  r.train_mask.assign(s.train_mask.begin(), s.train_mask.end());
  r.val_mask.assign(s.val_mask.begin(), s.val_mask.end());
  r.test_mask.assign(s.test_mask.begin(), s.test_mask.end());
  return r;
}

}  // namespace strata
