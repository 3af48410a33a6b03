#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "strata/core/error.h"
#include "strata/partition/chunks.h"
#include "strata/partition/partition_file.h"
#include "strata/partition/partitioner.h"
#include "strata/partition/quality.h"

using namespace strata;

namespace {
// 10x10 grid, vertex r*10+c joined to its right and lower neighbours.
Csr grid(int side) {
  std::vector<Edge> edges;
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      if (c + 1 < side) edges.push_back({r * side + c, r * side + c + 1});
      if (r + 1 < side) edges.push_back({r * side + c, (r + 1) * side + c});
    }
  return build_csr(side * side, edges, BuildOptions{});
}
std::string temp_path(const char* name) { return std::string("/tmp/strata_part_") + name; }
void write_text(const std::string& path, const char* text) { std::ofstream(path) << text; }
}  // namespace

TEST_CASE("parse_partition_method names the valid methods") {
  CHECK(parse_partition_method("metis") == PartitionMethod::kMetis);
  CHECK(parse_partition_method("rcm") == PartitionMethod::kRcm);
  CHECK_THROWS_WITH(parse_partition_method("spectral"), Catch::Contains("metis, random, range, rcm"));
}

TEST_CASE("METIS cuts a grid far better than random; others balanced") {
  const Csr g = grid(10);
  PartitionOptions opt{PartitionMethod::kMetis, 4};
  const auto metis = partition_graph(g, opt);
  opt.method = PartitionMethod::kRandom;
  const auto random = partition_graph(g, opt);
  const auto qm = measure_partition(g, metis, 4), qr = measure_partition(g, random, 4);
  CHECK(qm.edge_cut * 3 < qr.edge_cut);
  for (auto method : {PartitionMethod::kRandom, PartitionMethod::kRange, PartitionMethod::kRcm}) {
    opt.method = method;
    const auto q = measure_partition(g, partition_graph(g, opt), 4);
    CHECK(q.vertex_balance == Approx(1.0));
  }
  opt.parts = 1;
  CHECK(partition_graph(g, opt) == std::vector<std::int32_t>(100, 0));
}

TEST_CASE("partition files round trip and reject malformed input") {
  const std::vector<std::int32_t> parts{0, 1, 2, 1, 0};
  const std::string path = temp_path("ok.txt");
  write_partition_file(path, parts);
  CHECK(read_partition_file(path, 5, 3) == parts);
  CHECK_THROWS_WITH(read_partition_file(path, 6, 3), Catch::Contains(path));
  const std::string bad = temp_path("bad.txt");
  write_text(bad, "0\nx\n1\n");
  CHECK_THROWS_WITH(read_partition_file(bad, 3, 2), Catch::Contains(bad + ":2"));
  write_text(bad, "0\n5\n1\n");
  CHECK_THROWS_WITH(read_partition_file(bad, 3, 2), Catch::Contains(bad + ":2"));
  write_text(bad, "0\n0\n2\n");
  CHECK_THROWS_WITH(read_partition_file(bad, 3, 3), Catch::Contains("part 1 of 3 is empty"));
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

TEST_CASE("chunks keep most edges pointing backwards or inside") {
  const Csr g = grid(10);
  for (auto method : {PartitionMethod::kMetis, PartitionMethod::kRcm, PartitionMethod::kRange}) {
    const auto chunk = make_chunks(g, 4, method, 1);
    const double later = later_chunk_edge_fraction(g, chunk);
    CHECK(later > 0.0);
    CHECK(later < 0.25);
  }
  CHECK_THROWS(make_chunks(g, 4, PartitionMethod::kRandom, 1));
}
