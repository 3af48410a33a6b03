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
// 4 planted communities of 250 vertices, scattered over the ids (vertex v is in community
// (37 v mod 1000) / 250, so that neither id order nor round robin finds them): each vertex
// gets 4 edges to members of its own community and one to any vertex, by a fixed LCG.
Csr planted() {
  constexpr int n = 1000, size = 250, inverse = 973;  // 37 * 973 = 1 (mod 1000)
  std::vector<Edge> edges;
  std::uint64_t state = 12345;
  const auto draw = [&](int range) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(range));
  };
  for (int v = 0; v < n; ++v) {
    const int community = v * 37 % n / size;
    for (int k = 0; k < 4; ++k) edges.push_back({v, (community * size + draw(size)) * inverse % n});
    edges.push_back({v, draw(n)});
  }
  return build_csr(n, edges, BuildOptions{});
}
std::string temp_path(const char* name) {
  return std::string("/tmp/strata_part_") + name;
}
void write_text(const std::string& path, const char* text) {
  std::ofstream(path) << text;
}
}  // namespace

TEST_CASE("parse_partition_method names the valid methods") {
  CHECK(parse_partition_method("metis") == PartitionMethod::kMetis);
  CHECK(parse_partition_method("rcm") == PartitionMethod::kRcm);
  CHECK(parse_partition_method("fennel") == PartitionMethod::kFennel);
  CHECK_THROWS_WITH(parse_partition_method("spectral"),
                    Catch::Contains("metis, random, range, rcm, fennel"));
}

TEST_CASE("Fennel finds planted communities within its vertex cap, the same parts every run") {
  const Csr g = planted();
  for (const bool edges : {true, false}) {
    PartitionOptions opt{PartitionMethod::kFennel, 4};
    opt.balance_edges = edges;
    const auto fennel = partition_graph(g, opt);
    CHECK(partition_graph(g, opt) == fennel);
    opt.method = PartitionMethod::kRandom;
    const auto qf = measure_partition(g, fennel, 4);
    const auto qr = measure_partition(g, partition_graph(g, opt), 4);
    CHECK(qf.edge_cut * 4 < qr.edge_cut);                           // the planted cut is about 750
    for (const std::int64_t owned : qf.owned) CHECK(owned <= 258);  // ceil(1.03 * 250)
  }
  const auto q =
      measure_partition(grid(10), partition_graph(grid(10), {PartitionMethod::kFennel, 4}), 4);
  CHECK(q.edge_cut < 60);  // random cuts about 135 of the 180
  CHECK(q.vertex_balance <= 26.0 / 25.0);
}

TEST_CASE("METIS cuts a grid far better than random, others balanced") {
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
