// `strata partition`: partition a dataset (or read a gpmetis file), report its quality,
// and optionally write the partition file, per-rank shards and a chunking report.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"

namespace strata::cli {
namespace {

nlohmann::json report_json(const PartitionReport& q) {
  nlohmann::json j = {{"method", q.method},
                      {"parts", q.parts},
                      {"seconds", q.seconds},
                      {"edge_cut", q.edge_cut},
                      {"vertex_balance", q.vertex_balance},
                      {"edge_balance", q.edge_balance},
                      {"replication_factor", q.replication_factor},
                      {"boundary_pairs", q.boundary_pairs},
                      {"owned", q.owned},
                      {"halo", q.halo}};
  if (q.chunking)
    j["chunking"] = {{"chunks", q.chunking->chunks},
                     {"chunking", q.chunking->chunking},
                     {"later_chunk_edge_fraction", q.chunking->later_chunk_edge_fraction},
                     {"seconds", q.chunking->seconds}};
  return j;
}

void print_report(const PartitionReport& q) {
  const double edges = static_cast<double>(q.graph.edges) / 2.0;
  std::printf("%s: %lld vertices, %.0f undirected edges; %s into %d parts in %.2f s\n",
              q.graph.name.c_str(), static_cast<long long>(q.graph.vertices), edges,
              q.method.c_str(), q.parts, q.seconds);
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
  if (q.chunking)
    std::printf("%d chunks (%s): %.4f of edges point to a later chunk (read from history)\n",
                q.chunking->chunks, q.chunking->chunking.c_str(),
                q.chunking->later_chunk_edge_fraction);
}

}  // namespace

int run_partition(const PartitionArgs& args) {
  const PartitionRequest& r = args.request;
  const PartitionReport report = partition_dataset(args.data.dataset, args.data.load, r);
  if (args.json) {
    std::printf("%s\n", report_json(report).dump(2).c_str());
    return 0;
  }
  print_report(report);
  if (!r.out.empty()) std::printf("wrote %s\n", r.out.c_str());
  if (!r.shards.empty()) std::printf("wrote %d shards to %s\n", r.parts, r.shards.c_str());
  return 0;
}

}  // namespace strata::cli
