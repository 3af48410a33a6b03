// Partitioning on the fly: rank 0 holds the whole dataset, partitions it and sends every
// other rank its serialized shard. For convenience; shard files scale further.
#pragma once
#include "strata/comm/communicator.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard.h"

namespace strata {

// Rank 0's half, which does not communicate: partitions into `parts` and serializes every
// shard (so that a failure here can be agreed on before anyone waits for a message).
std::vector<std::vector<std::byte>> prepare_shards(const Dataset& data, PartitionOptions options,
                                                   int parts);
// Collective: rank 0 sends shard p to rank p (`prepared` is read on rank 0 only).
Shard exchange_shards(Communicator& comm, std::vector<std::vector<std::byte>> prepared);

// Both halves. `data` is read on rank 0 only (others may pass nullptr).
Shard scatter_shards(Communicator& comm, const Dataset* data, PartitionOptions options);

}  // namespace strata
