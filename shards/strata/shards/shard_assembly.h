// Graph mode fed from memory, one shard per rank: each rank holds the rows of the
// vertices it owns (global ids, adjacency in global ids, features, labels, masks), and
// the ranks work out together who owns what, the halo plan and the global degrees.
// No rank ever holds the whole graph's edges.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/shards/shard.h"

namespace strata {

struct ShardRows {
  std::string name;
  GlobalId global_nodes = 0;
  std::int32_t num_classes = 0;
  std::vector<GlobalId> ids;        // row r's global vertex id
  std::vector<EdgeOffset> offsets;  // ids.size() + 1
  std::vector<GlobalId> neighbors;  // global ids; duplicates and self-loops are dropped
  Matrix features;                  // ids.size() x F
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> train_mask, val_mask, test_mask;
};

// Collective. Input errors are agreed on (every rank throws the same one): a malformed
// row on any rank, a vertex owned by no rank or by two, an edge stored in one direction
// only. The shard's local order is build_local_graph's, so training matches a shard
// made from the whole graph with the same ownership.
Shard assemble_shard(Communicator& comm, ShardRows rows);

}  // namespace strata
