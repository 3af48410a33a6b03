#include "strata/shards/shard_assembly.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "strata/comm/agreed.h"
#include "strata/shards/shard_validation.h"

namespace strata {
namespace {

using Lists = std::vector<std::vector<GlobalId>>;

// Sends out[q] to rank q; returns what every rank sent this one. Collective.
Lists exchange_lists(Communicator& comm, const Lists& out) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::int64_t> send_counts(ranks), recv_counts(ranks);
  for (std::size_t q = 0; q < ranks; ++q)
    send_counts[q] = static_cast<std::int64_t>(out[q].size() * sizeof(GlobalId));
  const std::vector<std::int64_t> one(ranks, sizeof(std::int64_t));
  comm.all_to_all_v(std::as_bytes(std::span(send_counts)), one,
                    std::as_writable_bytes(std::span(recv_counts)), one, CommCategory::kControl);
  std::vector<GlobalId> send,
      recv(static_cast<std::size_t>(std::accumulate(recv_counts.begin(), recv_counts.end(), 0LL)) /
           sizeof(GlobalId));
  for (const auto& list : out) send.insert(send.end(), list.begin(), list.end());
  comm.all_to_all_v(std::as_bytes(std::span(send)), send_counts,
                    std::as_writable_bytes(std::span(recv)), recv_counts, CommCategory::kControl);
  Lists in(ranks);
  std::size_t at = 0;
  for (std::size_t q = 0; q < ranks; ++q) {
    const auto n = static_cast<std::size_t>(recv_counts[q]) / sizeof(GlobalId);
    in[q].assign(recv.begin() + static_cast<std::ptrdiff_t>(at),
                 recv.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return in;
}

void check_rows(const ShardRows& r) {
  const auto n = r.ids.size();
  STRATA_REQUIRE(r.num_classes >= 1, "graph: class count must be at least 1, got ", r.num_classes);
  STRATA_REQUIRE(r.offsets.size() == n + 1 && r.offsets.front() == 0 &&
                     r.offsets.back() == static_cast<EdgeOffset>(r.neighbors.size()),
                 "graph: offsets must hold rows + 1 = ", n + 1, " entries from 0 to ",
                 r.neighbors.size(), " (the neighbor count)");
  for (std::size_t i = 0; i < n; ++i) {
    STRATA_REQUIRE(r.offsets[i] <= r.offsets[i + 1], "graph: offsets decrease at row ", i);
    STRATA_REQUIRE(r.ids[i] >= 0 && r.ids[i] < r.global_nodes, "graph: row ", i, " has id ",
                   r.ids[i], " outside [0, ", r.global_nodes, ")");
  }
  for (std::size_t e = 0; e < r.neighbors.size(); ++e)
    STRATA_REQUIRE(r.neighbors[e] >= 0 && r.neighbors[e] < r.global_nodes, "graph: neighbor ", e,
                   " is ", r.neighbors[e], ", outside [0, ", r.global_nodes, ")");
  STRATA_REQUIRE(static_cast<std::size_t>(r.features.rows()) == n, "graph: ", r.features.rows(),
                 " feature rows for ", n, " rows");
  STRATA_REQUIRE(r.labels.size() == n, "graph: ", r.labels.size(), " labels for ", n, " rows");
  for (const auto* mask : {&r.train_mask, &r.val_mask, &r.test_mask})
    STRATA_REQUIRE(mask->size() == n, "graph: a split mask has ", mask->size(), " entries for ", n,
                   " rows");
}

// Rows in ascending global id, each row's neighbours sorted, deduplicated, no self-loop.
ShardRows sorted_rows(ShardRows r) {
  std::vector<std::size_t> order(r.ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return r.ids[a] < r.ids[b]; });
  ShardRows s{
      r.name, r.global_nodes, r.num_classes, {}, {0}, {}, Matrix(0, r.features.cols()), {}, {}, {},
      {}};
  s.features = Matrix(static_cast<std::int64_t>(order.size()), r.features.cols());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t o = order[i];
    STRATA_REQUIRE(i == 0 || r.ids[o] != s.ids.back(), "graph: vertex ", r.ids[o],
                   " is given twice on this rank");
    s.ids.push_back(r.ids[o]);
    std::vector<GlobalId> row(r.neighbors.begin() + r.offsets[o],
                              r.neighbors.begin() + r.offsets[o + 1]);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    std::erase(row, r.ids[o]);
    s.neighbors.insert(s.neighbors.end(), row.begin(), row.end());
    s.offsets.push_back(static_cast<EdgeOffset>(s.neighbors.size()));
    std::copy_n(r.features.row(static_cast<std::int64_t>(o)), r.features.cols(),
                s.features.row(static_cast<std::int64_t>(i)));
    s.labels.push_back(r.labels[o]);
    s.train_mask.push_back(r.train_mask[o]);
    s.val_mask.push_back(r.val_mask[o]);
    s.test_mask.push_back(r.test_mask[o]);
  }
  return s;
}
struct Ownership {
  std::vector<std::int32_t> owner;     // per global vertex
  std::vector<float> degree_plus_one;  // per global vertex
};

// Every rank learns every vertex's owner and degree (O(N) per rank, like the partition
// array a shard file is made from). Collective; errors are agreed on.
Ownership share_ownership(Communicator& comm, const ShardRows& s) {
  std::vector<GlobalId> mine;
  for (std::size_t i = 0; i < s.ids.size(); ++i) {
    mine.push_back(s.ids[i]);
    mine.push_back(s.offsets[i + 1] - s.offsets[i]);
  }
  const Lists in = exchange_lists(comm, Lists(static_cast<std::size_t>(comm.size()), mine));
  Ownership o{std::vector<std::int32_t>(static_cast<std::size_t>(s.global_nodes), -1),
              std::vector<float>(static_cast<std::size_t>(s.global_nodes), 0.0f)};
  run_agreed(comm, [&] {
    for (std::size_t q = 0; q < in.size(); ++q)
      for (std::size_t i = 0; i + 1 < in[q].size(); i += 2) {
        const auto v = static_cast<std::size_t>(in[q][i]);
        STRATA_REQUIRE(o.owner[v] < 0, "graph: vertex ", v, " is given by rank ", o.owner[v],
                       " and by rank ", q);
        o.owner[v] = static_cast<std::int32_t>(q);
        o.degree_plus_one[v] = static_cast<float>(in[q][i + 1] + 1);
      }
    const auto missing = std::find(o.owner.begin(), o.owner.end(), -1);
    STRATA_REQUIRE(missing == o.owner.end(), "graph: vertex ", missing - o.owner.begin(), " of ",
                   s.global_nodes, " is given by no rank");
  });
  return o;
}

bool row_has(const ShardRows& s, std::size_t row, GlobalId v) {
  return std::binary_search(s.neighbors.begin() + s.offsets[row],
                            s.neighbors.begin() + s.offsets[row + 1], v);
}

std::size_t row_of(const ShardRows& s, GlobalId id) {
  return static_cast<std::size_t>(std::lower_bound(s.ids.begin(), s.ids.end(), id) - s.ids.begin());
}

// Every edge u -> v must come with v -> u: checked here for local v, by v's owner else.
void check_symmetric(Communicator& comm, const ShardRows& s, const Ownership& o) {
  Lists reverse(static_cast<std::size_t>(comm.size()));
  std::string local_error;
  for (std::size_t r = 0; r < s.ids.size(); ++r)
    for (EdgeOffset e = s.offsets[r]; e < s.offsets[r + 1]; ++e) {
      const GlobalId v = s.neighbors[e];
      const int q = o.owner[static_cast<std::size_t>(v)];
      if (q != comm.rank()) {
        reverse[q].insert(reverse[q].end(), {v, s.ids[r]});
      } else if (local_error.empty() && !row_has(s, row_of(s, v), s.ids[r])) {
        local_error = cat(s.ids[r], " -> ", v);
      }
    }
  const Lists in = exchange_lists(comm, reverse);
  for (const auto& pairs : in)
    for (std::size_t i = 0; local_error.empty() && i + 1 < pairs.size(); i += 2)
      if (!row_has(s, row_of(s, pairs[i]), pairs[i + 1]))
        local_error = cat(pairs[i + 1], " -> ", pairs[i]);
  run_agreed(comm, [&] {
    STRATA_REQUIRE(local_error.empty(), "graph: edge ", local_error,
                   " has no reverse edge (give every edge in both directions)");
  });
}

// Owned rows first (ascending id), then the halo grouped by owner, ascending within.
void number_vertices(LocalGraph& g, const ShardRows& s, const Ownership& o) {
  g.local_to_global = s.ids;
  g.owned = static_cast<LocalId>(s.ids.size());
  std::vector<GlobalId> halo;
  for (GlobalId v : s.neighbors)
    if (o.owner[static_cast<std::size_t>(v)] != g.part) halo.push_back(v);
  std::sort(halo.begin(), halo.end(), [&](GlobalId x, GlobalId y) {
    const auto px = o.owner[static_cast<std::size_t>(x)], py = o.owner[static_cast<std::size_t>(y)];
    return px != py ? px < py : x < y;
  });
  halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  g.halo = static_cast<LocalId>(halo.size());
  g.local_to_global.insert(g.local_to_global.end(), halo.begin(), halo.end());
}

void build_local(Communicator& comm, LocalGraph& g, const ShardRows& s, const Ownership& o) {
  std::unordered_map<GlobalId, LocalId> local;
  for (std::size_t l = 0; l < g.local_to_global.size(); ++l)
    local.emplace(g.local_to_global[l], static_cast<LocalId>(l));
  Csr& a = g.adjacency;
  a.rows = g.owned;
  a.cols = g.owned + g.halo;
  for (std::size_t r = 0; r < s.ids.size(); ++r) {
    const auto begin = a.indices.size();
    for (EdgeOffset e = s.offsets[r]; e < s.offsets[r + 1]; ++e)
      a.indices.push_back(local.at(s.neighbors[e]));
    std::sort(a.indices.begin() + static_cast<std::ptrdiff_t>(begin), a.indices.end());
    a.offsets.push_back(a.nnz());
  }
  for (GlobalId v : g.local_to_global)
    g.degree_plus_one.push_back(o.degree_plus_one[static_cast<std::size_t>(v)]);
  const auto ranks = static_cast<std::size_t>(comm.size());
  Lists wanted(ranks);
  g.plan.recv.assign(ranks, {});
  for (LocalId l = g.owned; l < a.cols; ++l) {
    const GlobalId v = g.local_to_global[static_cast<std::size_t>(l)];
    const auto q = static_cast<std::size_t>(o.owner[static_cast<std::size_t>(v)]);
    wanted[q].push_back(v);
    g.plan.recv[q].push_back(l);
  }
  g.plan.send.assign(ranks, {});
  const Lists asked = exchange_lists(comm, wanted);  // ascending ids, all owned here
  for (std::size_t q = 0; q < ranks; ++q)
    for (GlobalId v : asked[q]) g.plan.send[q].push_back(local.at(v));
}

}  // namespace

Shard assemble_shard(Communicator& comm, ShardRows rows) {
  ShardRows s;
  run_agreed(comm, [&] {
    check_rows(rows);
    s = sorted_rows(std::move(rows));
  });
  const Ownership ownership = share_ownership(comm, s);
  check_symmetric(comm, s, ownership);
  Shard shard;
  shard.name = s.name;
  shard.parts = comm.size();
  shard.global_nodes = s.global_nodes;
  shard.num_classes = s.num_classes;
  shard.graph.part = comm.rank();
  number_vertices(shard.graph, s, ownership);
  build_local(comm, shard.graph, s, ownership);
  shard.features = choose_storage(std::move(s.features));
  shard.labels = std::move(s.labels);
  shard.train_mask = std::move(s.train_mask);
  shard.val_mask = std::move(s.val_mask);
  shard.test_mask = std::move(s.test_mask);
  run_agreed(comm, [&] { check_shard_contents(shard, cat("graph rows on rank ", comm.rank())); });
  return shard;
}

}  // namespace strata
