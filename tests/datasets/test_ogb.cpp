#include "test_util.h"

using namespace strata;
using namespace strata::test;

TEST_CASE("ogb: small directory loads raw values", "[ogb]") {
  const auto dir = small_ogb("ok");
  const Dataset d = load_ogb(dir.string(), {});
  CHECK(d.name == "strata_datasets_ok");
  REQUIRE(d.features.rows() == 4);
  REQUIRE(d.features.cols() == 2);
  CHECK(d.features.at(0, 1) == 3.0f);
  CHECK(d.features.at(2, 0) == 0.5f);
  CHECK(d.labels == std::vector<std::int32_t>{0, 1, 1, 0});
  CHECK(d.num_classes == 2);
  // Path 0-1-2-3 symmetrized, self-loop 3-3 dropped.
  CHECK(d.adjacency.nnz() == 6);
  CHECK(d.adjacency.degree(1) == 2);
  CHECK(d.train_mask == std::vector<std::uint8_t>{1, 1, 0, 0});
  CHECK(d.val_mask == std::vector<std::uint8_t>{0, 0, 1, 0});
  CHECK(d.test_mask == std::vector<std::uint8_t>{0, 0, 0, 1});
}

TEST_CASE("ogb: directed keeps edge direction", "[ogb]") {
  const auto dir = small_ogb("directed");
  LoadOptions options;
  options.directed = true;
  CHECK(load_ogb(dir.string(), options).adjacency.nnz() == 3);
}

TEST_CASE("ogb: split chosen by name, first by default", "[ogb]") {
  const auto dir = small_ogb("splits");
  write_gz(dir / "split/a/train.csv.gz", "3\n");
  write_gz(dir / "split/a/valid.csv.gz", "2\n");
  write_gz(dir / "split/a/test.csv.gz", "0\n1\n");
  CHECK(load_ogb(dir.string(), {}).train_mask[3] == 1);
  LoadOptions options;
  options.split = "s";
  CHECK(load_ogb(dir.string(), options).train_mask[0] == 1);
  options.split = "zzz";
  CHECK_THAT(error_of([&] { load_ogb(dir.string(), options); }), Catch::Contains("no split 'zzz'"));
}

TEST_CASE("preprocess: binarize then row-normalize", "[ogb]") {
  const auto dir = small_ogb("pre");
  LoadOptions options;
  options.binarize = true;
  const Dataset d = load_dataset(dir.string(), options);
  CHECK(d.features.at(0, 0) == Approx(0.5));
  CHECK(d.features.at(1, 0) == 0.0f);  // all-zero row stays zero
  options.binarize = false;
  const Dataset raw = load_dataset(dir.string(), options);
  CHECK(raw.features.at(0, 1) == Approx(0.75));
}

TEST_CASE("ogb: blank lines that end a file are no lines, one in the middle is named", "[ogb]") {
  const auto dir = small_ogb("blank_tail");
  const Dataset plain = load_ogb(dir.string(), {});
  write_gz(dir / "raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,3\n\n");
  write_gz(dir / "raw/node-feat.csv.gz", "1.0,3.0\n0.0,0.0\n0.5,0.25\n2,2\n\r\n\n");
  write_gz(dir / "raw/node-label.csv.gz", "0\n1\n1\n0\n\n\n");
  write_gz(dir / "split/s/test.csv.gz", "3\n\n");
  const Dataset tailed = load_ogb(dir.string(), {});
  CHECK(tailed.adjacency.offsets == plain.adjacency.offsets);
  CHECK(tailed.adjacency.indices == plain.adjacency.indices);
  CHECK(tailed.features == plain.features);
  CHECK(tailed.labels == plain.labels);
  CHECK(tailed.test_mask == plain.test_mask);
  write_gz(dir / "raw/node-label.csv.gz", "0\n1\n\n1\n0\n");
  CHECK_THAT(error_of([&] { load_ogb(dir.string(), {}); }), Catch::Contains("node-label.csv.gz:3"));
}
