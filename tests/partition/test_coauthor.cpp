#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "invariants.h"
#include "skip.h"
#include "strata/partition/partitioner.h"

using namespace strata;

namespace {
std::vector<Edge> read_edges(const std::string& path) {
  std::vector<Edge> edges;
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  char line[256];
  long long src = 0, dst = 0;
  while (gzgets(file, line, sizeof line) != nullptr)
    if (std::sscanf(line, "%lld,%lld", &src, &dst) == 2) edges.push_back({src, dst});
  gzclose(file);
  return edges;
}
// The real graph, or nothing (with a message) where the datasets are absent.
std::optional<Csr> coauthor_cs() {
  const char* env = std::getenv("STRATA_DATASETS");
  const std::string root = env != nullptr && *env != '\0' ? env : STRATA_DEFAULT_DATASETS;
  const std::string path = root + "/coauthor_cs/raw/edge.csv.gz";
  if (!std::filesystem::exists(path)) {
    test::skip(path + " not found");
    return std::nullopt;
  }
  return build_csr(18333, read_edges(path), BuildOptions{});
}
}  // namespace

TEST_CASE("coauthor_cs: METIS cuts far fewer edges than random") {
  const auto graph = coauthor_cs();
  if (!graph) return;
  const Csr& a = *graph;
  PartitionOptions options{PartitionMethod::kMetis, 4};
  const auto metis = measure_partition(a, partition_graph(a, options), 4);
  options.method = PartitionMethod::kRandom;
  const auto random = measure_partition(a, partition_graph(a, options), 4);
  WARN("coauthor_cs 4 parts: METIS cut " << metis.edge_cut << ", random cut " << random.edge_cut
                                         << ", METIS balance " << metis.vertex_balance);
  CHECK(metis.edge_cut * 3 <= random.edge_cut);
  CHECK(metis.vertex_balance <= 1.03 + 0.01);
}

TEST_CASE("coauthor_cs: local graph invariants hold for METIS and random parts") {
  const auto graph = coauthor_cs();
  if (!graph) return;
  const Csr& a = *graph;
  testing::check_partition_invariants(a, partition_graph(a, {PartitionMethod::kMetis, 4}), 4);
  testing::check_partition_invariants(a, partition_graph(a, {PartitionMethod::kRandom, 3}), 3);
}
