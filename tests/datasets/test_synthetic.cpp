#include <omp.h>

#include <string>

#include "test_util.h"

using namespace strata;
using namespace strata::test;

TEST_CASE("sbm: deterministic by seed, split sizes", "[synthetic]") {
  LoadOptions options;
  options.nodes = 2000;
  const Dataset a = make_sbm(options);
  const Dataset b = make_sbm(options);
  CHECK(a.adjacency.indices == b.adjacency.indices);
  CHECK(a.features == b.features);
  CHECK(a.train_mask == b.train_mask);
  options.seed = 1;
  CHECK(make_sbm(options).adjacency.indices != a.adjacency.indices);
  std::int64_t train = 0, val = 0, test = 0;
  for (std::size_t i = 0; i < a.labels.size(); ++i) {
    train += a.train_mask[i];
    val += a.val_mask[i];
    test += a.test_mask[i];
    CHECK(a.train_mask[i] + a.val_mask[i] + a.test_mask[i] == 1);
  }
  CHECK(train == 20 * 8);
  CHECK(val == 500);
  CHECK(test == 2000 - 160 - 500);
  CHECK(a.adjacency.nnz() > 2000 * 12);
}

TEST_CASE("sbm: most edges stay inside a block", "[synthetic]") {
  const Dataset d = make_sbm({});
  std::int64_t inside = 0;
  for (LocalId r = 0; r < d.adjacency.rows; ++r)
    for (LocalId c : d.adjacency.neighbors(r)) inside += d.labels[r] == d.labels[c];
  CHECK(static_cast<double>(inside) >
        0.7 * static_cast<double>(d.adjacency.nnz()));  // 70% + chance
}

// Fraction of ones in the feature columns of each vertex's own class, and in the others.
std::pair<double, double> feature_density(const Dataset& d) {
  const Matrix& x = d.features.dense();
  double own = 0, other = 0, own_count = 0, other_count = 0;
  for (std::int64_t i = 0; i < x.rows(); ++i)
    for (std::int64_t j = 0; j < x.cols(); ++j) {
      const bool mine = j % d.num_classes == d.labels[static_cast<std::size_t>(i)];
      (mine ? own : other) += x.at(i, j);
      (mine ? own_count : other_count) += 1;
    }
  return {own / own_count, other / other_count};
}

TEST_CASE("sbm: feature_signal sets the density of the own class's columns", "[synthetic]") {
  LoadOptions options;
  options.row_normalize = false;
  for (const float signal : {0.12f, 0.5f, 0.0f}) {
    options.feature_signal = signal;
    const auto [own, other] = feature_density(make_sbm(options));
    INFO("feature_signal " << signal);
    CHECK(own == Approx(signal).margin(0.01));
    CHECK(other == Approx(0.08).margin(0.01));
  }
  options.feature_signal = 1.5f;
  CHECK_THROWS_WITH(make_sbm(options), Catch::Contains("feature_signal must be in [0, 1]"));
}

TEST_CASE("rmat: sizes and skewed degrees", "[synthetic]") {
  LoadOptions options;
  options.nodes = 5000;
  const Dataset d = make_rmat(options);
  CHECK(d.adjacency.rows == 5000);
  CHECK(d.features.rows() == 5000);
  EdgeOffset max_degree = 0;
  for (LocalId r = 0; r < d.adjacency.rows; ++r)
    max_degree = std::max(max_degree, d.adjacency.degree(r));
  CHECK(max_degree > 10 * d.adjacency.nnz() / 5000);
  CHECK(make_rmat(options).adjacency.indices == d.adjacency.indices);
}

TEST_CASE("edge list: comments, whitespace, compacted ids", "[edgelist]") {
  const auto dir = temp_dir("edgelist");
  write_text(dir / "g.txt", "# a comment\n10 20\n20\t30\n\n30 10\n");
  const Dataset d = load_dataset((dir / "g.txt").string(), {});
  CHECK(d.name == "g");
  CHECK(d.adjacency.rows == 3);
  CHECK(d.adjacency.nnz() == 6);
  CHECK(d.labels.size() == 3);
  // Ids far apart (compacted by search, not a table), a self-loop, a duplicate, directed.
  write_text(dir / "far.txt", "9000000000 5\n5 7\n7 7\n5 7\n9000000000 7\n");
  LoadOptions directed;
  directed.directed = true;
  const Dataset far = load_dataset((dir / "far.txt").string(), directed);
  CHECK(far.adjacency.rows == 3);  // 5 -> 0, 7 -> 1, 9e9 -> 2
  CHECK(far.adjacency.offsets == std::vector<EdgeOffset>{0, 1, 1, 3});
  CHECK(far.adjacency.indices == std::vector<LocalId>{1, 0, 1});
  write_text(dir / "bad.txt", "1 2\n3\n");
  CHECK_THAT(error_of([&] { load_edge_list((dir / "bad.txt").string(), {}); }),
             Catch::Contains("bad.txt:2: expected 2 values, found 1"));
  CHECK_THAT(error_of([&] { load_dataset((dir / "nope.txt").string(), {}); }),
             Catch::Contains("nope.txt: no such dataset"));
}

TEST_CASE("generated graphs are clean CSRs, the same whatever the thread count", "[synthetic]") {
  for (bool directed : {false, true})
    for (const char* kind : {"sbm", "rmat"}) {
      INFO(kind << (directed ? ", directed" : ""));
      LoadOptions options;
      options.nodes = 30000;
      options.avg_degree = 12;
      options.directed = directed;
      const auto make = [&] {
        return std::string(kind) == "sbm" ? make_sbm(options) : make_rmat(options);
      };
      omp_set_num_threads(1);
      const Dataset one = make();
      omp_set_num_threads(2);
      const Dataset two = make();
      CHECK(two.adjacency.offsets == one.adjacency.offsets);
      CHECK(two.adjacency.indices == one.adjacency.indices);
      const Csr& a = one.adjacency;
      CHECK(a.values.empty());
      CHECK(is_symmetric(a) == !directed);
      bool clean = true;  // rows sorted, no duplicate, no self-loop
      for (LocalId r = 0; r < a.rows; ++r)
        for (EdgeOffset k = a.offsets[r]; k < a.offsets[r + 1]; ++k)
          clean =
              clean && a.indices[k] != r && (k == a.offsets[r] || a.indices[k - 1] < a.indices[k]);
      CHECK(clean);
      // The graphs the edge-list build made before generation went straight into CSR (files
      // of commit ec0ed52 compared byte for byte after the change): R-MAT's entry count.
      if (std::string(kind) == "rmat" && !directed) CHECK(a.nnz() == 328802);
    }
}
