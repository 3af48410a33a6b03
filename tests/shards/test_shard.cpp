#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "strata/core/sections.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard.h"

using namespace strata;

namespace {

Dataset small_dataset() {
  LoadOptions options;
  options.nodes = 301;
  options.avg_degree = 6;
  options.features = 17;
  options.classes = 3;
  return load_dataset("synthetic", options);
}

void check_same(const Shard& a, const Shard& b) {
  CHECK(a.name == b.name);
  CHECK(a.parts == b.parts);
  CHECK(a.global_nodes == b.global_nodes);
  CHECK(a.num_classes == b.num_classes);
  CHECK(a.graph.local_to_global == b.graph.local_to_global);
  CHECK(a.graph.adjacency.offsets == b.graph.adjacency.offsets);
  CHECK(a.graph.adjacency.indices == b.graph.adjacency.indices);
  CHECK(a.graph.degree_plus_one == b.graph.degree_plus_one);
  CHECK(a.graph.plan.send == b.graph.plan.send);
  CHECK(a.graph.plan.recv == b.graph.plan.recv);
  CHECK(a.features == b.features);
  CHECK(a.labels == b.labels);
  CHECK(a.train_mask == b.train_mask);
  CHECK(a.val_mask == b.val_mask);
  CHECK(a.test_mask == b.test_mask);
}

// The three masks of a shard differ from one another, so a mix-up between them shows.
void require_distinct_masks(const Shard& s) {
  REQUIRE(std::count(s.val_mask.begin(), s.val_mask.end(), 1) > 0);
  REQUIRE(s.val_mask != s.train_mask);
  REQUIRE(s.val_mask != s.test_mask);
  REQUIRE(s.train_mask != s.test_mask);
}

// Sets int64 number `field` of section `index` of a record (core/sections.h layout: magic,
// version, then size, payload, crc32 per section) and recomputes that section's crc32.
void set_int64(std::vector<std::byte>& bytes, int index, int field, std::int64_t value) {
  std::size_t at = 8 + 4;
  std::uint64_t size = 0;
  for (int i = 0;; ++i) {
    std::memcpy(&size, bytes.data() + at, sizeof size);
    at += sizeof size;
    if (i == index) break;
    at += size + sizeof(std::uint32_t);
  }
  REQUIRE((field + 1) * sizeof value <= size);
  std::memcpy(bytes.data() + at + field * sizeof value, &value, sizeof value);
  const std::uint32_t crc = crc32_of(bytes.data() + at, size);
  std::memcpy(bytes.data() + at + size, &crc, sizeof crc);
}

std::string temp_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("a shard holds exactly its owned rows of the dataset") {
  const Dataset d = small_dataset();
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kMetis, 3});
  std::int64_t owned = 0;
  for (int p = 0; p < 3; ++p) {
    const Shard s = make_shard(d, parts, 3, p);
    owned += s.graph.owned;
    for (LocalId l = 0; l < s.graph.owned; ++l) {
      const GlobalId v = s.graph.local_to_global[l];
      CHECK(parts[v] == p);
      CHECK(s.labels[l] == d.labels[v]);
      CHECK(s.train_mask[l] == d.train_mask[v]);
      CHECK(s.val_mask[l] == d.val_mask[v]);
      CHECK(s.test_mask[l] == d.test_mask[v]);
      for (std::int64_t c = 0; c < d.features.cols(); ++c)
        CHECK(s.features.at(l, c) == d.features.at(v, c));
    }
  }
  CHECK(owned == d.adjacency.rows);
}

TEST_CASE("shards round trip through bytes and files, sparse and dense features") {
  Dataset d = small_dataset();
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kRandom, 2});
  for (bool sparse : {false, true}) {
    d.features = sparse ? FeatureMatrix(to_csr(d.features.to_dense()))
                        : FeatureMatrix(d.features.to_dense());
    const Shard s = make_shard(d, parts, 2, 1);
    REQUIRE(s.features.is_sparse() == sparse);
    require_distinct_masks(s);
    check_same(s, deserialize_shard(serialize_shard(s), "memory"));
  }
  const std::string dir = temp_dir("strata_shards_ok");
  write_shards(d, parts, 2, dir);
  for (int p = 0; p < 2; ++p) check_same(read_shard(dir, p, 2), make_shard(d, parts, 2, p));
  CHECK_THROWS_WITH(read_shard(dir, 0, 3), Catch::Contains("partitioned into 3 parts"));
}

TEST_CASE("corrupt, truncated and inconsistent shards are named input errors") {
  const Dataset d = small_dataset();
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kRange, 2});
  const auto bytes = serialize_shard(make_shard(d, parts, 2, 0));
  auto flipped = bytes;
  flipped[bytes.size() / 2] ^= std::byte{0x40};
  CHECK_THROWS_WITH(deserialize_shard(flipped, "s"), Catch::Contains("checksum mismatch"));
  const std::span<const std::byte> cut(bytes.data(), bytes.size() - 9);
  CHECK_THROWS_WITH(deserialize_shard(cut, "s"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(deserialize_shard(std::span(bytes).subspan(3), "s"),
                    Catch::Contains("bad magic"));
  Shard bad = make_shard(d, parts, 2, 0);
  bad.graph.plan.send[1].push_back(bad.graph.owned);  // a halo id in a send list
  CHECK_THROWS_WITH(deserialize_shard(serialize_shard(bad), "s"),
                    Catch::Contains("not an owned vertex"));
  bad = make_shard(d, parts, 2, 0);
  bad.labels[0] = 99;
  CHECK_THROWS_WITH(deserialize_shard(serialize_shard(bad), "s"), Catch::Contains("label 99"));
  bad = make_shard(d, parts, 2, 0);
  bad.graph.local_to_global[0] = d.adjacency.rows;
  CHECK_THROWS_WITH(deserialize_shard(serialize_shard(bad), "s"), Catch::Contains("global id"));
}

TEST_CASE("shard sizes that overflow or exceed the file are input errors, not allocations") {
  Dataset d = small_dataset();
  d.features = FeatureMatrix(d.features.to_dense());
  const auto parts = partition_graph(d.adjacency, {PartitionMethod::kRange, 2});
  const auto bytes = serialize_shard(make_shard(d, parts, 2, 0));
  auto bad = bytes;
  set_int64(bad, 0, 3, std::int64_t{1} << 62);  // header: owned + halo overflows
  set_int64(bad, 0, 4, std::int64_t{1} << 62);
  CHECK_THROWS_WITH(deserialize_shard(bad, "s"), Catch::Contains("s: implausible sizes"));
  bad = bytes;
  // feature_cols (section 11 with 2 parts): a 150 x 2^31-1 matrix would need 1.2 TB.
  set_int64(bad, 11, 0, (std::int64_t{1} << 31) - 1);
  CHECK_THROWS_WITH(deserialize_shard(bad, "s"), Catch::Contains("s: section features has"));
}
