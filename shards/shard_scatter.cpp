#include "strata/shards/shard_scatter.h"

namespace strata {
namespace {

constexpr int kSizeTag = 101;
constexpr int kShardTag = 102;

void send_shard(Communicator& comm, int peer, const std::vector<std::byte>& bytes) {
  std::int64_t size = static_cast<std::int64_t>(bytes.size());
  comm.send(peer, kSizeTag, std::as_bytes(std::span(&size, 1)), CommCategory::kControl);
  comm.send(peer, kShardTag, bytes, CommCategory::kControl);
}

Shard receive_shard(Communicator& comm) {
  std::int64_t size = 0;
  comm.recv(0, kSizeTag, std::as_writable_bytes(std::span(&size, 1)));
  STRATA_CHECK(size >= 0, "rank ", comm.rank(), ": shard of ", size, " bytes announced");
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  comm.recv(0, kShardTag, bytes);
  return deserialize_shard(bytes, cat("shard ", comm.rank(), " from rank 0"));
}

}  // namespace

std::vector<std::vector<std::byte>> prepare_shards(const Dataset& data, PartitionOptions options,
                                                   int parts) {
  options.parts = parts;
  const auto assignment = partition_graph(data.adjacency, options);
  auto graphs = build_local_graphs(data.adjacency, assignment, parts);
  std::vector<std::vector<std::byte>> shards;
  for (int p = 0; p < parts; ++p)
    shards.push_back(serialize_shard(make_shard(data, std::move(graphs[p]), parts)));
  return shards;
}

Shard exchange_shards(Communicator& comm, std::vector<std::vector<std::byte>> prepared) {
  if (comm.rank() != 0) return receive_shard(comm);
  STRATA_CHECK(static_cast<int>(prepared.size()) == comm.size(), prepared.size(),
               " shards prepared for ", comm.size(), " ranks");
  for (int p = 1; p < comm.size(); ++p) send_shard(comm, p, prepared[p]);
  return deserialize_shard(prepared[0], "shard 0");
}

Shard scatter_shards(Communicator& comm, const Dataset* data, PartitionOptions options) {
  std::vector<std::vector<std::byte>> prepared;
  if (comm.rank() == 0) {
    STRATA_CHECK(data != nullptr, "scatter_shards: rank 0 has no dataset");
    prepared = prepare_shards(*data, options, comm.size());
  }
  return exchange_shards(comm, std::move(prepared));
}

}  // namespace strata
