#include "strata/partition_tools.h"

#include "conversions.h"
#include "strata/core/timer.h"
#include "strata/partition/chunks.h"
#include "strata/partition/partition_file.h"
#include "strata/partition/quality.h"
#include "strata/shards/shard.h"

namespace strata {
namespace {

ChunkingReport measure_chunking(const Dataset& d, const PartitionRequest& request) {
  Timer timer;
  const auto chunk = make_chunks(d.adjacency, request.chunks,
                                 parse_partition_method(request.chunking), request.seed);
  return {request.chunks, partition_method_name(parse_partition_method(request.chunking)),
          later_chunk_edge_fraction(d.adjacency, chunk), timer.seconds()};
}

}  // namespace

PartitionReport partition_dataset(const std::string& spec, const DatasetOptions& options,
                                  const PartitionRequest& request) {
  const PartitionOptions partition =
      to_partition_options(request.options, request.parts, request.seed);
  parse_partition_method(request.chunking);
  const Dataset d = load_dataset(spec, to_load_options(options));
  Timer timer;
  const auto parts = request.in.empty()
                         ? partition_graph(d.adjacency, partition)
                         : read_partition_file(request.in, d.adjacency.rows, request.parts);
  PartitionReport report;
  report.seconds = timer.seconds();
  report.graph = summarize(d);
  report.method = request.in.empty() ? partition_method_name(partition.method) : "file";
  const PartitionQuality q = measure_partition(d.adjacency, parts, request.parts);
  report.parts = q.parts;
  report.edge_cut = q.edge_cut;
  report.vertex_balance = q.vertex_balance;
  report.edge_balance = q.edge_balance;
  report.replication_factor = q.replication_factor;
  report.boundary_pairs = q.boundary_pairs;
  report.owned = q.owned;
  report.halo = q.halo;
  if (request.chunks > 0) report.chunking = measure_chunking(d, request);
  if (!request.out.empty()) write_partition_file(request.out, parts);
  if (!request.shards.empty()) write_shards(d, parts, request.parts, request.shards);
  return report;
}

}  // namespace strata
