// renumbered(): the same dataset under a permutation of its vertices.
#include <algorithm>
#include <numeric>

#include "strata/core/random.h"
#include "test_util.h"

using namespace strata;

namespace {

Dataset small_sbm(bool sparse_features) {
  LoadOptions options;
  options.nodes = 257;
  options.features = 19;
  Dataset d = make_sbm(options);
  if (sparse_features) d.features = FeatureMatrix(to_csr(d.features.to_dense()));
  return d;
}

std::vector<LocalId> shuffled(LocalId n, std::uint64_t seed) {
  std::vector<LocalId> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

}  // namespace

TEST_CASE("renumbered keeps every edge, feature row, label and split under the new ids",
          "[datasets][renumber]") {
  for (const bool sparse : {false, true}) {
    INFO((sparse ? "sparse" : "dense") << " features");
    const Dataset d = small_sbm(sparse);
    const std::vector<LocalId> order = shuffled(d.adjacency.rows, 5);
    const Dataset r = renumbered(d, order);
    REQUIRE(r.adjacency.rows == d.adjacency.rows);
    REQUIRE(r.adjacency.nnz() == d.adjacency.nnz());
    std::vector<LocalId> new_id(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) new_id[order[i]] = static_cast<LocalId>(i);
    for (LocalId i = 0; i < r.adjacency.rows; ++i) {
      const auto row = r.adjacency.neighbors(i);
      REQUIRE(std::is_sorted(row.begin(), row.end()));
      std::vector<LocalId> want;
      for (LocalId old : d.adjacency.neighbors(order[i])) want.push_back(new_id[old]);
      std::sort(want.begin(), want.end());
      REQUIRE(std::vector<LocalId>(row.begin(), row.end()) == want);
      for (std::int64_t c = 0; c < d.features.cols(); ++c)
        REQUIRE(r.features.at(i, c) == d.features.at(order[i], c));
      REQUIRE(r.labels[i] == d.labels[order[i]]);
      REQUIRE(r.train_mask[i] == d.train_mask[order[i]]);
      REQUIRE(r.val_mask[i] == d.val_mask[order[i]]);
      REQUIRE(r.test_mask[i] == d.test_mask[order[i]]);
    }
    REQUIRE(r.features.is_sparse() == sparse);
    // The inverse permutation gives the dataset back exactly.
    const Dataset back = renumbered(r, new_id);
    REQUIRE(back.adjacency.offsets == d.adjacency.offsets);
    REQUIRE(back.adjacency.indices == d.adjacency.indices);
    REQUIRE(back.features == d.features);
    REQUIRE(back.labels == d.labels);
  }
}

TEST_CASE("renumbered refuses an order that is not a permutation", "[datasets][renumber]") {
  const Dataset d = small_sbm(false);
  std::vector<LocalId> order = shuffled(d.adjacency.rows, 1);
  std::vector<LocalId> short_order(order.begin(), order.end() - 1);
  REQUIRE_THROWS_WITH(renumbered(d, short_order),
                      Catch::Contains("an order of 256 vertices for a graph of 257"));
  order[3] = order[4];
  REQUIRE_THROWS_WITH(renumbered(d, order), Catch::Contains("entry 4 of the order"));
  order[4] = 257;
  REQUIRE_THROWS_WITH(renumbered(d, order), Catch::Contains("out of range or repeated"));
}
