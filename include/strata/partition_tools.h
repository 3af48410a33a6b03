// Partitioning a dataset and measuring the partition (`strata partition`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/config.h"
#include "strata/graph.h"
#include "strata/result.h"

namespace strata {

struct PartitionRequest {
  int parts = 4;
  Config::Partition options;
  std::uint64_t seed = 0;
  std::string in;      ///< read this gpmetis-format partition instead of partitioning
  std::string out;     ///< write the partition in gpmetis format (one part id per line)
  std::string shards;  ///< write one shard per part into this directory (graph mode input)
  int chunks = 0;      ///< also measure a pipeline chunking of the whole graph into K chunks
  std::string chunking = "metis";  ///< metis | rcm | range
};

struct ChunkingReport {
  int chunks = 0;
  std::string chunking;
  double later_chunk_edge_fraction = 0;  ///< edges into a later chunk: read from history
  double seconds = 0;
};

struct PartitionReport {
  GraphSummary graph;
  std::string method;  ///< the partitioner, or "file"
  int parts = 0;
  double seconds = 0;                           ///< partitioning time
  std::int64_t edge_cut = 0;                    ///< undirected edges between parts
  double vertex_balance = 0, edge_balance = 0;  ///< max / average per part
  double replication_factor = 0;                ///< (owned + halo) / vertices
  /// (vertex, remote part) pairs with an edge between them: the rows graph mode sends
  /// each aggregation (see DESIGN.md, "Communication volume").
  std::int64_t boundary_pairs = 0;
  std::vector<std::int64_t> owned, halo;  ///< per part
  std::optional<ChunkingReport> chunking;
};

PartitionReport partition_dataset(const std::string& spec, const DatasetOptions& options,
                                  const PartitionRequest& request);

}  // namespace strata
