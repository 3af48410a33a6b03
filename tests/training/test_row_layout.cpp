#include <algorithm>
#include <catch2/catch.hpp>

#include "strata/datasets/dataset.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard.h"
#include "strata/training/interior_first.h"
#include "strata/training/row_layout.h"

using namespace strata;

namespace {

bool reads_halo(const RowLayout& l, LocalId r) {
  for (EdgeOffset e = l.a_hat.offsets[r]; e < l.a_hat.offsets[r + 1]; ++e)
    if (l.a_hat.indices[e] >= l.owned) return true;
  return false;
}

bool is_sent(const RowLayout& l, LocalId r) {
  return std::any_of(l.whole_plan.send.begin(), l.whole_plan.send.end(), [&](const auto& list) {
    return std::find(list.begin(), list.end(), r) != list.end();
  });
}

// The global ids of a's entries in row r, and their values, in stored order.
std::vector<std::pair<GlobalId, float>> row_entries(const RowLayout& l, LocalId r) {
  std::vector<std::pair<GlobalId, float>> out;
  for (EdgeOffset e = l.a_hat.offsets[r]; e < l.a_hat.offsets[r + 1]; ++e)
    out.emplace_back(l.order[static_cast<std::size_t>(l.a_hat.indices[e])], l.a_hat.value(r, e));
  return out;
}

void check_renumbered(const RowLayout& before, const RowLayout& after,
                      const std::vector<GlobalId>& old_of) {
  REQUIRE(old_of.size() == static_cast<std::size_t>(before.owned));
  CHECK(after.owned == before.owned);
  CHECK(after.halo == before.halo);
  for (LocalId r = 0; r < after.owned; ++r) {
    const auto old = static_cast<LocalId>(old_of[static_cast<std::size_t>(r)]);
    CHECK(after.order[static_cast<std::size_t>(r)] == before.order[static_cast<std::size_t>(old)]);
    // Same neighbours, same weights, same order: every aggregation sums exactly as before.
    CHECK(row_entries(after, r) == row_entries(before, old));
    const bool interior = r < after.interior;
    CHECK(interior == (!reads_halo(after, r) && !is_sent(after, r)));
  }
  CHECK(std::equal(after.order.begin() + after.owned, after.order.end(),
                   before.order.begin() + before.owned));
  for (std::size_t q = 0; q < before.whole_plan.send.size(); ++q) {
    const auto& was = before.whole_plan.send[q];
    const auto& now = after.whole_plan.send[q];
    REQUIRE(was.size() == now.size());
    for (std::size_t i = 0; i < was.size(); ++i)  // the same vertices, in the order peers expect
      CHECK(after.order[static_cast<std::size_t>(now[i])] ==
            before.order[static_cast<std::size_t>(was[i])]);
  }
  CHECK(after.whole_plan.recv == before.whole_plan.recv);
  REQUIRE(after.chunk_plans.size() == 1);
  CHECK(after.chunk_plans[0].send == after.whole_plan.send);
}

Dataset synthetic_graph(std::int64_t nodes, std::uint64_t seed) {
  LoadOptions options;
  options.nodes = nodes;
  options.avg_degree = 5;
  options.features = 4;
  options.classes = 3;
  options.seed = seed;
  return load_dataset("synthetic", options);
}

}  // namespace

TEST_CASE("interior_first numbers the rows that need no halo first and keeps every sum") {
  const Dataset d = synthetic_graph(3000, 11);
  for (int parts : {2, 4})
    for (PartitionMethod method : {PartitionMethod::kMetis, PartitionMethod::kRandom}) {
      INFO(parts << " parts, " << partition_method_name(method));
      const auto part_of = partition_graph(d.adjacency, {method, parts});
      for (int p = 0; p < parts; ++p) {
        const Shard shard = make_shard(d, part_of, parts, p);
        const RowLayout before = shard_layout(shard.graph, parts, Propagation::kGcn);
        RowLayout after = before;
        const std::vector<GlobalId> old_of = interior_first(after);
        check_renumbered(before, after, old_of);
        if (method == PartitionMethod::kMetis) {  // both kinds of row on this graph
          CHECK(after.interior > 0);
          CHECK(after.interior < after.owned);
        }
      }
    }
}

TEST_CASE("a shard ordered interior first gives the layout interior_first makes, and its rows") {
  const Dataset d = synthetic_graph(3000, 11);
  const auto part_of = partition_graph(d.adjacency, {PartitionMethod::kMetis, 3});
  for (int p = 0; p < 3; ++p) {
    INFO("part " << p);
    const Shard shard = make_shard(d, part_of, 3, p);
    RowLayout expected = shard_layout(shard.graph, 3, Propagation::kGcn);
    const std::vector<GlobalId> old_of = interior_first(expected);
    REQUIRE_FALSE(is_identity(old_of));
    Shard ordered = shard;
    order_interior_first(ordered);
    RowLayout got = shard_layout(ordered.graph, 3, Propagation::kGcn);
    CHECK(is_identity(interior_first(got)));
    CHECK(got.order == expected.order);
    CHECK(got.interior == expected.interior);
    CHECK(got.whole_plan.send == expected.whole_plan.send);
    CHECK(got.whole_plan.recv == expected.whole_plan.recv);
    CHECK(equal_up_to_row_order(got.a_hat, expected.a_hat));  // the self-loop may move
    const Matrix want = shard.features.select_rows(old_of).to_dense();
    const Matrix have = ordered.features.to_dense();
    CHECK(
        std::equal(have.data(), have.data() + have.size(), want.data(), want.data() + want.size()));
    CHECK(ordered.labels == select_values(shard.labels, old_of));
    CHECK(ordered.train_mask == select_values(shard.train_mask, old_of));
    CHECK(ordered.test_mask == select_values(shard.test_mask, old_of));
    Shard again = ordered;  // ordering an ordered shard changes nothing
    order_interior_first(again);
    CHECK(again.graph.adjacency.indices == ordered.graph.adjacency.indices);
  }
}

TEST_CASE("a hybrid rank's one-chunk layout is numbered interior first, a chunked one is not") {
  const Dataset d = synthetic_graph(800, 2);
  const auto part_of = partition_graph(d.adjacency, {PartitionMethod::kMetis, 2});
  const std::vector<std::int32_t> one_chunk(part_of.size(), 0), two_chunks = [&] {
    std::vector<std::int32_t> c(part_of.size());
    for (std::size_t v = 0; v < c.size(); ++v) c[v] = static_cast<std::int32_t>(v % 2);
    return c;
  }();
  const RowLayout whole = part_layout(d.adjacency, part_of, 2, 0, one_chunk, 1, Propagation::kGcn);
  CHECK(whole.interior > 0);
  for (LocalId r = 0; r < whole.owned; ++r)
    CHECK((r < whole.interior) == (!reads_halo(whole, r) && !is_sent(whole, r)));
  const RowLayout chunked =
      part_layout(d.adjacency, part_of, 2, 0, two_chunks, 2, Propagation::kGcn);
  CHECK(chunked.interior == 0);
}

TEST_CASE("join_columns puts a hybrid rank's Â back together from its split by columns") {
  // BlockRows keeps a chunked rank's Â as Â[:, owned] and Â[:, halo] only; a chunk's rows
  // over every column (for its transpose) are joined from them, entry for entry.
  const Dataset d = synthetic_graph(600, 3);
  const auto part_of = partition_graph(d.adjacency, {PartitionMethod::kMetis, 3});
  std::vector<std::int32_t> chunk_of(part_of.size());
  for (std::size_t v = 0; v < chunk_of.size(); ++v) chunk_of[v] = static_cast<std::int32_t>(v % 3);
  for (const bool factored : {false, true}) {
    INFO((factored ? "factored" : "values stored"));
    const RowLayout l =
        part_layout(d.adjacency, part_of, 3, 1, chunk_of, 3, Propagation::kGcn, factored);
    REQUIRE(l.halo > 0);
    const Csr inner = column_range(l.a_hat, 0, l.owned);
    const Csr outer = column_range(l.a_hat, l.owned, l.owned + l.halo);
    CHECK(outer.nnz() > 0);
    const Csr joined = join_columns(inner, outer);
    CHECK(joined.rows == l.a_hat.rows);
    CHECK(joined.cols == l.a_hat.cols);
    CHECK(joined.offsets == l.a_hat.offsets);
    CHECK(joined.indices == l.a_hat.indices);
    CHECK(joined.values.empty() == factored);  // the scales joined, no value an entry
    CHECK(entry_values(joined.view()) == entry_values(l.a_hat.view()));
    CHECK_THROWS(join_columns(inner, column_range(row_block_copy(l.a_hat, {0, 1, 0}), 0, 1)));
    // A side with no entries in the rows joins as well.
    const Block first_row{0, 1, 0};
    const Csr no_halo =
        column_range(row_block_copy(l.a_hat, first_row), l.a_hat.cols, l.a_hat.cols);
    CHECK(no_halo.nnz() == 0);
    const Csr row = join_columns(row_block_copy(inner, first_row), no_halo);
    CHECK(entry_values(row.view()) == entry_values(row_block_copy(inner, first_row).view()));
    // A device's copy of a block stores its values and none of the scales.
    const Csr stored = row_block_with_values(l.a_hat, {2, 7, 0});
    CHECK(stored.row_scale.empty());
    CHECK(stored.col_scale.empty());
    CHECK(stored.values == entry_values(row_block_copy(l.a_hat, {2, 7, 0}).view()));
  }
}
