// Real data (skipped when the shared datasets are absent) and load timings.
#include <chrono>
#include <iostream>

#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

std::int64_t count(const std::vector<std::uint8_t>& mask) {
  std::int64_t n = 0;
  for (auto m : mask) n += m;
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("real: cora statistics", "[real]") {
  const fs::path dir = fs::path(datasets_root()) / "cora";
  if (!fs::is_directory(dir)) {
    skip("cora not found under " + datasets_root() + " (set STRATA_DATASETS)");
    return;
  }
  const Dataset d = load_dataset(dir.string(), {});
  CHECK(d.adjacency.rows == 2708);
  CHECK(d.features.cols() == 1433);
  CHECK(d.num_classes == 7);
  CHECK(d.adjacency.nnz() == 10556);
  CHECK(count(d.train_mask) == 140);
  CHECK(count(d.val_mask) == 500);
  CHECK(count(d.test_mask) == 1000);
}

TEST_CASE("real: coauthor_physics gzip vs cache timing", "[.timing]") {
  const fs::path dir = fs::path(datasets_root()) / "coauthor_physics";
  if (!fs::is_directory(dir)) {
    skip("coauthor_physics not found under " + datasets_root());
    return;
  }
  auto start = std::chrono::steady_clock::now();
  const Dataset d = load_ogb(dir.string(), {});
  const double gzip_s = seconds_since(start);
  const fs::path cache = temp_dir("timing") / "physics.strata";
  save_cache(d, cache.string());
  start = std::chrono::steady_clock::now();
  const Dataset c = load_cache_raw(cache.string());
  const double cache_s = seconds_since(start);
  std::cout << "coauthor_physics: gzip " << gzip_s << " s, cache " << cache_s << " s\n";
  CHECK(c.features == d.features);
  CHECK(d.adjacency.nnz() == 495924);
}
