// The graph a Trainer learns on: a dataset on disk, shard files, or arrays in memory.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace strata {

/// How a dataset is read and preprocessed (the CLI's dataset flags).
struct DatasetOptions {
  std::string split;          ///< OGB split name; empty: the only one, or the first by name
  bool directed = false;      ///< keep edge directions as stored (default: symmetrize)
  bool binarize = false;      ///< features x > 0 become 1
  bool row_normalize = true;  ///< feature rows sum to 1 (all-zero rows stay zero)
  // Synthetic generators ("synthetic": stochastic block model, "rmat": R-MAT).
  std::int64_t nodes = 4096;
  double avg_degree = 16;
  std::int32_t features = 64;
  std::int32_t classes = 8;
  std::uint64_t seed = 0;
  /// SBM: chance of a 1 in the feature columns of a vertex's own class (others: 0.08);
  /// higher makes the task easier
  float feature_signal = 0.12f;
};

/// A graph in memory, borrowed for the duration of the Trainer's constructor. The rows
/// are either the whole graph (row_ids empty; every rank passes the same arrays) or, in
/// graph mode, this rank's own vertices (row_ids names each row's global id; every
/// vertex of the graph belongs to exactly one rank).
struct GraphSpans {
  std::span<const std::int64_t> offsets;    ///< CSR: rows + 1 entries, from 0, non-decreasing
  std::span<const std::int64_t> neighbors;  ///< global vertex ids in [0, vertices)
  std::span<const float> features;          ///< rows x feature_count, row-major, finite
  std::int64_t feature_count = 0;
  std::span<const std::int32_t> labels;  ///< rows, each in [0, class_count)
  std::int32_t class_count = 0;
  std::span<const std::uint8_t> train_mask, val_mask, test_mask;  ///< rows each, 0 or 1
  std::span<const std::int64_t> row_ids;  ///< one shard per rank: each row's global id
  std::int64_t vertices = 0;  ///< the whole graph's vertex count; 0 with row_ids empty: rows
  std::string name = "in-memory";
};

/// Where the graph comes from. The adjacency is taken as undirected: every edge must be
/// stored in both directions (in memory; files are symmetrized unless `directed`).
/// Self-loops and duplicate edges are dropped; the GCN adds its own self-loops.
class GraphInput {
 public:
  /// "synthetic", "rmat", an OGB raw directory, FILE.strata (binary cache), or an edge list.
  static GraphInput dataset(std::string spec, DatasetOptions options = {});
  /// Graph mode: DIR/part-<rank>-of-<ranks>.shard, as `strata partition --shards` writes.
  static GraphInput shard_files(std::string dir);
  static GraphInput spans(GraphSpans spans);

  struct Source;  ///< the variant itself (facade/graph_input.h)
  const Source& source() const { return *source_; }

 private:
  explicit GraphInput(std::shared_ptr<const Source> source) : source_(std::move(source)) {}
  std::shared_ptr<const Source> source_;
};

}  // namespace strata
