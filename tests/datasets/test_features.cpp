// FeatureMatrix: dense or sparse storage chosen by density, row selection, preprocessing
// and cache round trips that keep the storage kind and the exact values.
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

// 4 x 5, 6 non-zeros (30%):
//   [1 0 0 2 0]
//   [0 0 0 0 0]
//   [0 3 0 0 0]
//   [4 0 5 0 6]
Matrix small_dense() {
  Matrix m(4, 5);
  m.at(0, 0) = 1, m.at(0, 3) = 2, m.at(2, 1) = 3, m.at(3, 0) = 4, m.at(3, 2) = 5, m.at(3, 4) = 6;
  return m;
}

// A 6-node OGB directory with 10-column bag-of-words features (7 of 60 non-zero).
fs::path sparse_ogb(const std::string& name) {
  const fs::path dir = temp_dir(name);
  write_gz(dir / "raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,4\n4,5\n");
  write_gz(dir / "raw/node-feat.csv.gz",
           "0,0,1.5,0,0,0,0,0,0,0\n0,0,0,0,0,0,0,0,0,0\n2,0,0,0,0,0,0,0,0,1\n"
           "0.0,0.0,0.0,3,0.0,0.0,0.0,0.0,0.0,0.0\n0,0,0,0,0,0,0,0,4,0\n0,1,0,0,0,0,0,0,0,1\n");
  write_gz(dir / "raw/node-label.csv.gz", "0\n1\n0\n1\n0\n1\n");
  write_gz(dir / "raw/num-node-list.csv.gz", "6\n");
  write_gz(dir / "raw/num-edge-list.csv.gz", "5\n");
  write_gz(dir / "split/s/train.csv.gz", "0\n1\n");
  write_gz(dir / "split/s/valid.csv.gz", "2\n3\n");
  write_gz(dir / "split/s/test.csv.gz", "4\n5\n");
  return dir;
}

}  // namespace

TEST_CASE("features: storage chosen by density", "[features]") {
  const FeatureMatrix dense = choose_storage(small_dense());  // 30% >= 25%
  CHECK_FALSE(dense.is_sparse());
  CHECK(dense.nnz() == 6);
  CHECK(dense.density() == Approx(0.3));
  const FeatureMatrix sparse = choose_storage(small_dense(), 0.5);
  REQUIRE(sparse.is_sparse());
  CHECK(sparse.rows() == 4);
  CHECK(sparse.cols() == 5);
  CHECK(sparse.nnz() == 6);
  CHECK(sparse.sparse().offsets == std::vector<EdgeOffset>{0, 2, 2, 3, 6});
  CHECK(sparse.at(3, 2) == 5.0f);
  CHECK(sparse.at(1, 2) == 0.0f);
  CHECK(sparse.to_dense().storage() == small_dense().storage());
  CHECK_FALSE(choose_storage(to_csr(small_dense())).is_sparse());
  CHECK(choose_storage(to_csr(small_dense()), 0.5) == sparse);
}

TEST_CASE("features: select_rows keeps order, repeats and storage", "[features]") {
  const std::vector<GlobalId> ids{3, 0, 3, 1};
  for (double max_density : {0.0, 1.0}) {
    const FeatureMatrix x = choose_storage(small_dense(), max_density);
    const FeatureMatrix picked = x.select_rows(ids);
    CHECK(picked.is_sparse() == x.is_sparse());
    REQUIRE(picked.rows() == 4);
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 5; ++j) CHECK(picked.at(i, j) == x.at(ids[i], j));
    CHECK(x.select_rows({}).rows() == 0);
    CHECK(x.select_rows({}).cols() == 5);
  }
  const FeatureMatrix sparse = choose_storage(small_dense(), 1.0);
  CHECK(sparse.select_rows(ids).nnz() == 3 + 2 + 3 + 0);
}

TEST_CASE("features: without_values keeps shape, kind and count, and refuses reads", "[features]") {
  for (double max_density : {0.0, 1.0}) {
    const FeatureMatrix x = choose_storage(small_dense(), max_density);
    const FeatureMatrix shape = x.without_values();
    CHECK(x.has_values());
    CHECK_FALSE(shape.has_values());
    CHECK(shape.is_sparse() == x.is_sparse());
    CHECK(shape.rows() == 4);
    CHECK(shape.cols() == 5);
    CHECK(shape.nnz() == 6);
    CHECK(shape.density() == Approx(0.3));
    CHECK_THROWS_WITH(shape.at(0, 0), Catch::Contains("released on this rank"));
    CHECK_THROWS_WITH(shape.select_rows(std::vector<GlobalId>{0}),
                      Catch::Contains("released on this rank"));
    CHECK_THROWS(shape.to_dense());
    CHECK_THROWS(shape == x);
    CHECK_THROWS(x.is_sparse() ? static_cast<void>(shape.sparse())
                               : static_cast<void>(shape.dense()));
  }
}

TEST_CASE("features: keeping_rows keeps shape and its rows' values only", "[features]") {
  const std::vector<GlobalId> held{0, 3};
  for (double max_density : {0.0, 1.0}) {
    const FeatureMatrix x = choose_storage(small_dense(), max_density);
    const FeatureMatrix part = x.keeping_rows(held);
    CHECK_FALSE(x.holds_some_rows());
    REQUIRE(part.holds_some_rows());
    CHECK_FALSE(part.has_values());
    CHECK(part.is_sparse() == x.is_sparse());
    CHECK(part.rows() == 4);
    CHECK(part.nnz() == 6);
    CHECK(part.held_ids().size() == 2);
    CHECK(part.held_values() == x.select_rows(held));
    CHECK_THROWS_WITH(part.at(0, 0), Catch::Contains("only 2 of the features' 4 rows are kept"));
    CHECK_THROWS_WITH(x.held_values(), Catch::Contains("every row or none"));
    CHECK_THROWS_WITH(x.keeping_rows(std::vector<GlobalId>{3, 0}), Catch::Contains("after"));
    CHECK_THROWS(x.keeping_rows(std::vector<GlobalId>{0, 4}));
  }
}

TEST_CASE("features: OGB bag-of-words loads sparse, preprocessing matches dense", "[features]") {
  const auto dir = sparse_ogb("sparse_ogb");
  const Dataset raw = load_ogb(dir.string(), {});
  REQUIRE(raw.features.is_sparse());
  CHECK(raw.features.nnz() == 7);
  CHECK(raw.features.at(3, 3) == 3.0f);
  CHECK(raw.features.at(5, 9) == 1.0f);
  for (bool binarize : {false, true}) {
    LoadOptions options;
    options.binarize = binarize;
    Dataset sparse = raw, dense = raw;
    dense.features = FeatureMatrix(raw.features.to_dense());
    preprocess(sparse, options);
    preprocess(dense, options);
    CHECK(sparse.features.to_dense().storage() == dense.features.dense().storage());
  }
  CHECK_FALSE(load_ogb(small_ogb("dense_ogb").string(), {}).features.is_sparse());
}

TEST_CASE("features: cache round trip keeps sparse and dense exactly", "[features][cache]") {
  const auto dir = sparse_ogb("sparse_cache");
  const Dataset sparse = load_ogb(dir.string(), {});
  Dataset dense = sparse;
  dense.features = FeatureMatrix(sparse.features.to_dense());
  for (const Dataset* d : {&sparse, static_cast<const Dataset*>(&dense)}) {
    const std::string path = (dir / "f.strata").string();
    save_cache(*d, path);
    const Dataset back = load_cache_raw(path);
    CHECK(back.features.is_sparse() == d->features.is_sparse());
    CHECK(back.features == d->features);
  }
}

TEST_CASE("features: version 1 caches still load", "[features][cache]") {
  const auto dir = sparse_ogb("v1_cache");
  const Dataset d = load_ogb(dir.string(), {});
  const fs::path path = dir / "v1.strata";
  save_cache(d, path.string());
  // Version 2 = version 1 plus a 13-byte feature-kind section after the adjacency.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t kind_at = 12 + (8 + 40 + 4) + (8 + d.name.size() + 4) +
                              (8 + 8 * (d.adjacency.offsets.size()) + 4) +
                              (8 + 4 * d.adjacency.indices.size() + 4);
  bytes.erase(kind_at, 13);
  bytes[8] = 1;
  write_text(path, bytes);
  const Dataset back = load_cache_raw(path.string());
  CHECK(back.features == d.features);  // v1: storage chosen by density
  bytes[8] = 7;
  write_text(path, bytes);
  CHECK_THAT(error_of([&] { load_cache_raw(path.string()); }),
             Catch::Contains("cache version 7, expected 1 or 2"));
}
