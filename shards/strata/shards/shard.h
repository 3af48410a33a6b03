// One rank's share of a partitioned dataset: its local graph with halo plan, and the
// features, labels and split masks of the vertices it owns. A training rank loads only
// its own shard, so no process needs the whole graph.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/datasets/dataset.h"
#include "strata/partition/local_graph.h"

namespace strata {

struct Shard {
  std::string name;
  int parts = 1;
  GlobalId global_nodes = 0;
  std::int32_t num_classes = 0;
  LocalGraph graph;
  FeatureMatrix features;            // owned rows, in local order
  std::vector<std::int32_t> labels;  // owned rows
  std::vector<std::uint8_t> train_mask, val_mask, test_mask;
};

Shard make_shard(const Dataset& data, std::span<const std::int32_t> parts, int num_parts, int part);
// The same from a local graph already built (build_local_graphs makes all parts at once).
Shard make_shard(const Dataset& data, LocalGraph graph, int num_parts);
// Checksummed bytes; deserializing validates every size, id and value, naming `source`.
std::vector<std::byte> serialize_shard(const Shard& shard);
Shard deserialize_shard(std::span<const std::byte> bytes, const std::string& source);

// DIR/part-<p>-of-<P>.shard for every part, each written atomically.
void write_shards(const Dataset& data, std::span<const std::int32_t> parts, int num_parts,
                  const std::string& dir);
std::string shard_path(const std::string& dir, int part, int num_parts);
Shard read_shard(const std::string& dir, int part, int num_parts);

}  // namespace strata
