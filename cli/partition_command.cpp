// `strata partition`: partition a dataset (or read a gpmetis file), report its quality,
// and optionally write the partition file, per-rank shards and a chunking report.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"

namespace strata::cli {
namespace {

std::vector<std::int32_t> make_parts(const Dataset& d, const PartitionArgs& args) {
  if (!args.in.empty()) return read_partition_file(args.in, d.adjacency.rows, args.options.parts);
  return partition_graph(d.adjacency, args.options);
}

nlohmann::json quality_json(const PartitionQuality& q, const PartitionArgs& args, double seconds) {
  return {{"method", args.in.empty() ? partition_method_name(args.options.method) : "file"},
          {"parts", q.parts},
          {"seconds", seconds},
          {"edge_cut", q.edge_cut},
          {"vertex_balance", q.vertex_balance},
          {"edge_balance", q.edge_balance},
          {"replication_factor", q.replication_factor},
          {"boundary_pairs", q.boundary_pairs},
          {"owned", q.owned},
          {"halo", q.halo}};
}

void print_quality(const PartitionQuality& q, const Dataset& d, const nlohmann::json& j) {
  const double edges = static_cast<double>(d.adjacency.nnz()) / 2.0;
  std::printf("%s: %d vertices, %.0f undirected edges; %s into %d parts in %.2f s\n",
              d.name.c_str(), d.adjacency.rows, edges, j["method"].get<std::string>().c_str(),
              q.parts, j["seconds"].get<double>());
  std::printf("edge cut %lld (%.2f%% of edges)  vertex balance %.4f  edge balance %.4f\n",
              static_cast<long long>(q.edge_cut),
              edges > 0 ? 100.0 * static_cast<double>(q.edge_cut) / edges : 0.0, q.vertex_balance,
              q.edge_balance);
  std::printf("replication factor %.4f  boundary pairs B %lld\n", q.replication_factor,
              static_cast<long long>(q.boundary_pairs));
  std::printf("part      owned       halo\n");
  for (int p = 0; p < q.parts; ++p)
    std::printf("%4d %10lld %10lld\n", p, static_cast<long long>(q.owned[p]),
                static_cast<long long>(q.halo[p]));
}

nlohmann::json chunk_json(const Dataset& d, const PartitionArgs& args) {
  Timer timer;
  const auto chunk = make_chunks(d.adjacency, args.chunks, args.chunking, args.options.seed);
  return {{"chunks", args.chunks},
          {"chunking", partition_method_name(args.chunking)},
          {"later_chunk_edge_fraction", later_chunk_edge_fraction(d.adjacency, chunk)},
          {"seconds", timer.seconds()}};
}

}  // namespace

int run_partition(const PartitionArgs& args) {
  const Dataset d = load_dataset(args.data.dataset, args.data.load);
  Timer timer;
  const auto parts = make_parts(d, args);
  const double seconds = timer.seconds();
  const PartitionQuality q = measure_partition(d.adjacency, parts, args.options.parts);
  nlohmann::json report = quality_json(q, args, seconds);
  if (args.chunks > 0) report["chunking"] = chunk_json(d, args);
  if (!args.out.empty()) write_partition_file(args.out, parts);
  if (!args.shards.empty()) write_shards(d, parts, args.options.parts, args.shards);
  if (args.json) {
    std::printf("%s\n", report.dump(2).c_str());
    return 0;
  }
  print_quality(q, d, report);
  if (args.chunks > 0) {
    const auto& c = report["chunking"];
    std::printf("%d chunks (%s): %.4f of edges point to a later chunk (read from history)\n",
                args.chunks, c["chunking"].get<std::string>().c_str(),
                c["later_chunk_edge_fraction"].get<double>());
  }
  if (!args.out.empty()) std::printf("wrote %s\n", args.out.c_str());
  if (!args.shards.empty())
    std::printf("wrote %d shards to %s\n", args.options.parts, args.shards.c_str());
  return 0;
}

}  // namespace strata::cli
