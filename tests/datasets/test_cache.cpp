#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

void check_same(const Dataset& a, const Dataset& b) {
  CHECK(a.name == b.name);
  CHECK(a.adjacency.offsets == b.adjacency.offsets);
  CHECK(a.adjacency.indices == b.adjacency.indices);
  CHECK(a.features == b.features);
  CHECK(a.labels == b.labels);
  CHECK(a.num_classes == b.num_classes);
  CHECK(a.train_mask == b.train_mask);
  CHECK(a.val_mask == b.val_mask);
  CHECK(a.test_mask == b.test_mask);
}

fs::path saved_cache(const std::string& name, Dataset* out = nullptr) {
  LoadOptions options;
  options.nodes = 300;
  const Dataset d = make_sbm(options);
  const fs::path path = temp_dir(name) / "g.strata";
  save_cache(d, path.string());
  if (out != nullptr) *out = d;
  return path;
}

std::string corrupt_error(const fs::path& path) {
  return error_of([&] { load_cache_raw(path.string()); });
}

}  // namespace

TEST_CASE("cache: round trip is identical", "[cache]") {
  Dataset original;
  const auto path = saved_cache("roundtrip", &original);
  check_same(original, load_cache_raw(path.string()));
  const auto dir = small_ogb("cache_ogb");
  const Dataset ogb = load_ogb(dir.string(), {});
  save_cache(ogb, (dir / "c.strata").string());
  check_same(ogb, load_cache_raw((dir / "c.strata").string()));
}

TEST_CASE("cache: load_dataset preprocesses after a cache load", "[cache]") {
  const auto path = saved_cache("preprocess");
  const Dataset d = load_dataset(path.string(), {});
  double sum = 0;
  for (std::int64_t j = 0; j < d.features.cols(); ++j) sum += d.features.at(0, j);
  CHECK((sum == Approx(1.0) || sum == 0.0));
}

TEST_CASE("cache: flipped byte is rejected", "[cache]") {
  const auto path = saved_cache("flip");
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  const auto at = static_cast<std::streamoff>(fs::file_size(path) / 2);
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(at);
  f.write(&c, 1);
  f.close();
  CHECK_THAT(corrupt_error(path), Catch::Contains("checksum mismatch"));
}

TEST_CASE("cache: truncated file is rejected", "[cache]") {
  const auto path = saved_cache("truncated");
  fs::resize_file(path, fs::file_size(path) - 10);
  CHECK_THAT(corrupt_error(path), Catch::Contains("truncated cache"));
  fs::resize_file(path, 5);
  CHECK_THAT(corrupt_error(path), Catch::Contains("truncated cache"));
}

TEST_CASE("cache: bad magic and version are rejected", "[cache]") {
  const auto path = saved_cache("magic");
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.write("STRATA99", 8);
  f.close();
  CHECK_THAT(corrupt_error(path), Catch::Contains("bad magic"));
  CHECK_THAT(corrupt_error(path.parent_path() / "none.strata"), Catch::Contains("cannot open"));
}
