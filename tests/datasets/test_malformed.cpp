// Every malformed input names the file and the 1-based line.
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

std::string load_error(const fs::path& dir) {
  return error_of([&] { load_ogb(dir.string(), {}); });
}

void check_error(const std::string& case_name, const std::string& file, const std::string& text,
                 const std::string& expected) {
  const auto dir = small_ogb("bad_" + case_name);
  write_gz(dir / file, text);
  const std::string message = load_error(dir);
  INFO(message);
  CHECK_THAT(message, Catch::Contains(file + expected));
  CHECK(message.find('\n') == std::string::npos);
}

}  // namespace

TEST_CASE("malformed: missing file", "[malformed]") {
  const auto dir = small_ogb("bad_missing");
  fs::remove(dir / "raw/node-label.csv.gz");
  CHECK_THAT(load_error(dir), Catch::Contains("raw/node-label.csv.gz: no such file"));
}

TEST_CASE("malformed: empty file", "[malformed]") {
  check_error("empty", "raw/node-feat.csv.gz", "", ":1: empty file");
}

TEST_CASE("malformed: truncated gzip", "[malformed]") {
  const auto dir = small_ogb("bad_truncated");
  std::string big;
  for (int i = 0; i < 4; ++i) big += "0.125,0.5\n";
  write_gz(dir / "raw/node-feat.csv.gz", big);
  const auto path = dir / "raw/node-feat.csv.gz";
  fs::resize_file(path, fs::file_size(path) - 6);
  const std::string message = load_error(dir);
  CHECK_THAT(message, Catch::Contains("raw/node-feat.csv.gz:"));
  CHECK_THAT(message, Catch::Contains("truncated"));
}

TEST_CASE("malformed: wrong column count", "[malformed]") {
  check_error("columns", "raw/node-feat.csv.gz", "1,2\n3,4\n5\n6,7\n",
              ":3: expected 2 values, found 1");
  check_error("edge_columns", "raw/edge.csv.gz", "0,1\n1,2,3\n2,3\n3,0\n",
              ":2: expected 2 values, found 3");
}

TEST_CASE("malformed: non-numeric token", "[malformed]") {
  check_error("token", "raw/node-feat.csv.gz", "1,2\n3,x4\n5,6\n6,7\n", ":2: not a number: 'x4'");
  check_error("edge_token", "raw/edge.csv.gz", "0,1\n1,2\n2,a\n3,0\n", ":3: not an integer: 'a'");
}

TEST_CASE("malformed: NaN and Inf features", "[malformed]") {
  check_error("nan", "raw/node-feat.csv.gz", "1,2\nnan,4\n5,6\n6,7\n", ":2: non-finite");
  check_error("inf", "raw/node-feat.csv.gz", "1,2\n3,4\n5,6\n6,inf\n", ":4: non-finite");
}

TEST_CASE("malformed: id out of range", "[malformed]") {
  check_error("edge_id", "raw/edge.csv.gz", "0,1\n1,4\n2,3\n3,0\n", ":2: node id 4 out of range");
  check_error("split_id", "split/s/train.csv.gz", "0\n-1\n", ":2: node id -1 out of range");
}

TEST_CASE("malformed: node count disagrees with rows", "[malformed]") {
  check_error("few_rows", "raw/node-feat.csv.gz", "1,2\n3,4\n5,6\n", ":3: expected 4 rows");
  check_error("many_rows", "raw/node-feat.csv.gz", "1,2\n3,4\n5,6\n7,8\n9,9\n", ":5: more rows");
  check_error("few_labels", "raw/node-label.csv.gz", "0\n1\n1\n", ":3: expected 4 labels");
}

TEST_CASE("malformed: edge count mismatch", "[malformed]") {
  check_error("edge_count", "raw/edge.csv.gz", "0,1\n1,2\n2,3\n", ":3: expected 4 edges");
}

TEST_CASE("malformed: label out of range or negative", "[malformed]") {
  check_error("neg_label", "raw/node-label.csv.gz", "0\n-1\n1\n0\n", ":2: label -1 out of range");
  check_error("big_label", "raw/node-label.csv.gz", "0\n1\n99\n0\n", ":3: label 99 out of range");
}

TEST_CASE("malformed: bad count files", "[malformed]") {
  check_error("nodes_two", "raw/num-node-list.csv.gz", "4\n5\n", ":2: expected a single line");
  check_error("nodes_text", "raw/num-node-list.csv.gz", "four\n", ":1: not an integer");
}

TEST_CASE("malformed: a huge declared count is a count mismatch, not a huge allocation",
          "[malformed]") {
  // 2^62 edges of 16 bytes: reserving them threw std::length_error.
  auto dir = small_ogb("bad_huge_edges");
  write_gz(dir / "raw/num-edge-list.csv.gz", "4611686018427387904\n");
  CHECK_THAT(load_error(dir), Catch::Contains("raw/edge.csv.gz:4: expected 4611686018427387904 "
                                              "edges (num-edge-list), found 4"));
  // 2^31 - 1 nodes: 16 GiB of row offsets were reserved for a 4-row feature file.
  dir = small_ogb("bad_huge_nodes");
  write_gz(dir / "raw/num-node-list.csv.gz", "2147483647\n");
  CHECK_THAT(load_error(dir), Catch::Contains("raw/node-feat.csv.gz:4: expected 2147483647 rows"));
}
