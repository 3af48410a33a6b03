#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "strata/core/error.h"
#include "strata/graph/csr.h"

using namespace strata;

// Path with a duplicate and a self-loop in the input:
//
//   0 --- 1 --- 2      3 (isolated)
//
// edges given: (0,1) (1,0) (1,2) (2,2) (1,2)
static Csr path_graph() {
  std::vector<Edge> edges{{0, 1}, {1, 0}, {1, 2}, {2, 2}, {1, 2}};
  return build_csr(4, edges, BuildOptions{});
}

TEST_CASE("build_csr symmetrizes, drops duplicates and self-loops") {
  const Csr a = path_graph();
  REQUIRE(a.rows == 4);
  REQUIRE(a.nnz() == 4);
  CHECK(a.indices == std::vector<LocalId>{1, 0, 2, 1});
  CHECK(a.offsets == std::vector<EdgeOffset>{0, 1, 3, 4, 4});
  validate(a, "path");
}

TEST_CASE("build_csr keeps directions when asked") {
  std::vector<Edge> edges{{0, 1}, {2, 1}};
  const Csr a = build_csr(3, edges, BuildOptions{false, true, true});
  CHECK(a.nnz() == 2);
  CHECK(a.degree(1) == 0);
}

TEST_CASE("build_csr rejects out-of-range ids with the edge named") {
  std::vector<Edge> edges{{0, 1}, {1, 7}};
  try {
    build_csr(3, edges, BuildOptions{});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kInput);
    CHECK(std::string(e.what()).find("edge 1 (1, 7)") != std::string::npos);
  }
}

TEST_CASE("gcn_normalize matches D^-1/2 (A+I) D^-1/2") {
  const Csr a = path_graph();
  const Csr n = gcn_normalize(a, degrees_plus_one(a));
  // degrees+1: 2, 3, 2, 1
  REQUIRE(n.nnz() == 4 + 4);
  CHECK(n.indices == std::vector<LocalId>{0, 1, 0, 1, 2, 1, 2, 3});
  const float d[] = {2, 3, 2, 1};
  for (LocalId r = 0; r < n.rows; ++r)
    for (EdgeOffset k = n.offsets[r]; k < n.offsets[r + 1]; ++k)
      CHECK(n.value(r, k) == Approx(1.0 / std::sqrt(d[r] * d[n.indices[k]])));
}

TEST_CASE(
    "gcn_normalize stores no value an entry: each is its row's and column's scales' product") {
  const Csr a = path_graph();
  const Csr n = gcn_normalize(a, degrees_plus_one(a));
  CHECK(n.values.empty());
  REQUIRE(n.row_scale.size() == 4);
  REQUIRE(n.col_scale.size() == 4);
  const std::vector<float> values = entry_values(n.view());
  REQUIRE(values.size() == 8);
  for (LocalId r = 0; r < n.rows; ++r)
    for (EdgeOffset k = n.offsets[r]; k < n.offsets[r + 1]; ++k) {
      const float inv_r = 1.0f / std::sqrt(static_cast<float>(a.degree(r) + 1));
      const float inv_c = 1.0f / std::sqrt(static_cast<float>(a.degree(n.indices[k]) + 1));
      CHECK(values[static_cast<std::size_t>(k)] == inv_r * inv_c);  // bit for bit
    }
  // A row block seen where it lies reads the same values.
  const std::vector<float> tail = entry_values(rows_view(n, 1, 3));
  CHECK(tail == std::vector<float>(values.begin() + 2, values.begin() + 7));
  // Rows and columns renumbered carry their scales: entry (i, j) of the permuted matrix is
  // entry (order[i], order[j]) of n.
  const std::vector<LocalId> order{2, 0, 3, 1};
  const Csr p = permute_symmetric(n, order);
  for (LocalId i = 0; i < p.rows; ++i)
    for (EdgeOffset k = p.offsets[i]; k < p.offsets[i + 1]; ++k) {
      const LocalId r = order[static_cast<std::size_t>(i)];
      const LocalId c = order[static_cast<std::size_t>(p.indices[k])];
      const auto row = n.neighbors(r);
      const auto at = std::find(row.begin(), row.end(), c) - row.begin();
      CHECK(p.value(i, k) == n.value(r, n.offsets[r] + at));
    }
}

TEST_CASE("Â of an undirected graph is its own transpose bit for bit, is_symmetric says so") {
  std::vector<Edge> edges;
  for (GlobalId v = 0; v < 200; ++v)  // irregular degrees: 1/sqrt products of many pairs
    for (GlobalId u : {(v * 7 + 3) % 200, (v * v + 11) % 200, (v / 3) % 200})
      edges.push_back({v, u});
  const Csr a = build_csr(200, edges, BuildOptions{});
  const Csr n = gcn_normalize(a, degrees_plus_one(a));
  const Csr t = transpose(n);
  CHECK(t.offsets == n.offsets);
  CHECK(t.indices == n.indices);
  CHECK(entry_values(t.view()) == entry_values(n.view()));  // exact: inv[r] * inv[c]
  CHECK(is_symmetric(n));
  CHECK(is_symmetric(a));
  CHECK_FALSE(is_symmetric(mean_normalize(a, degrees_plus_one(a))));  // 1 / degree of the row
  const Csr directed = build_csr(3, std::vector<Edge>{{0, 1}, {1, 2}}, {.symmetrize = false});
  CHECK_FALSE(is_symmetric(directed));
  Csr unsorted = n;  // symmetric, but a row out of column order is refused
  std::swap(unsorted.indices[unsorted.offsets[5]], unsorted.indices[unsorted.offsets[5] + 1]);
  CHECK_FALSE(is_symmetric(unsorted));
  Csr changed = n;  // row 3's scale off by one unit in the last place
  changed.row_scale[3] = std::nextafter(changed.row_scale[3], 1.0f);
  CHECK_FALSE(is_symmetric(changed));
  Csr stored = n;  // the same with each value stored, then one of them off by a unit
  stored.values = entry_values(n.view());
  stored.row_scale.clear();
  stored.col_scale.clear();
  CHECK(is_symmetric(stored));
  stored.values[3] = std::nextafter(stored.values[3], 1.0f);
  CHECK_FALSE(is_symmetric(stored));
}

TEST_CASE("mean_normalize averages each row's neighbours, without self-loops") {
  const Csr a = path_graph();
  const Csr m = mean_normalize(a, degrees_plus_one(a));
  CHECK(m.indices == a.indices);
  CHECK(m.offsets == a.offsets);
  CHECK(m.values.empty());                                                      // a scale a row
  CHECK(entry_values(m.view()) == std::vector<float>{1.0f, 0.5f, 0.5f, 1.0f});  // vertex 3: none
  // A part's rows use the global degrees: row 0 of a part holding vertex 1 with one of its
  // two neighbours local still averages over both.
  Csr part;
  part.rows = 1;
  part.cols = 2;
  part.offsets = {0, 2};
  part.indices = {0, 1};
  CHECK(entry_values(mean_normalize(part, std::vector<float>{5.0f, 3.0f}).view()) ==
        std::vector<float>{0.25f, 0.25f});
}

TEST_CASE("transpose of a rectangular matrix") {
  Csr a;
  a.rows = 2;
  a.cols = 3;
  a.offsets = {0, 2, 3};
  a.indices = {0, 2, 2};
  a.values = {1, 2, 3};
  const Csr t = transpose(a);
  CHECK(t.rows == 3);
  CHECK(t.offsets == std::vector<EdgeOffset>{0, 1, 1, 3});
  CHECK(t.indices == std::vector<LocalId>{0, 0, 1});
  CHECK(t.values == std::vector<float>{1, 2, 3});
  CHECK(transpose(t).indices == a.indices);
  a.values.clear();  // factored: the transpose's entry (c, r) is a's (r, c)
  a.row_scale = {2, 3};
  a.col_scale = {5, 7, 11};
  const Csr f = transpose(a);
  CHECK(f.row_scale == a.col_scale);
  CHECK(f.col_scale == a.row_scale);
  CHECK(entry_values(f.view()) == std::vector<float>{10, 22, 33});
}

TEST_CASE("validate names the broken entry") {
  Csr a = path_graph();
  a.indices[2] = 9;
  CHECK_THROWS_WITH(validate(a, "g"), Catch::Contains("column 9 at entry 2"));
}

TEST_CASE("equal_up_to_row_order compares each row's entries in any order") {
  const Csr a = gcn_normalize(path_graph(), degrees_plus_one(path_graph()));
  Csr shuffled = a;  // row 1 (entries 0, 1, 2) reversed: the same entries
  std::reverse(shuffled.indices.begin() + 2, shuffled.indices.begin() + 5);
  CHECK(equal_up_to_row_order(shuffled, a));
  CHECK(equal_up_to_row_order(shuffled, transpose(shuffled)));
  Csr moved = shuffled;  // row 1's values changed
  moved.row_scale[1] += 1.0f;
  CHECK_FALSE(equal_up_to_row_order(moved, a));
  Csr unweighted = a;
  unweighted.row_scale.clear();
  unweighted.col_scale.clear();
  CHECK_FALSE(equal_up_to_row_order(unweighted, a));
}
