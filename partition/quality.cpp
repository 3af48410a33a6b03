#include "strata/partition/quality.h"

#include <algorithm>

#include "strata/core/error.h"

namespace strata {
namespace {

double max_over_average(const std::vector<std::int64_t>& sizes, double total) {
  if (total <= 0) return 1.0;
  const auto largest = *std::max_element(sizes.begin(), sizes.end());
  return static_cast<double>(largest) * static_cast<double>(sizes.size()) / total;
}

// Distinct (vertex, remote part) pairs, encoded vertex * num_parts + part.
std::vector<std::int64_t> boundary_pair_keys(const Csr& a, std::span<const std::int32_t> parts,
                                             int num_parts) {
  std::vector<std::int64_t> keys;
  for (LocalId u = 0; u < a.rows; ++u)
    for (LocalId v : a.neighbors(u))
      if (parts[v] != parts[u])
        keys.push_back(static_cast<std::int64_t>(v) * num_parts + parts[u]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace

PartitionQuality measure_partition(const Csr& a, std::span<const std::int32_t> parts,
                                   int num_parts) {
  STRATA_REQUIRE(static_cast<LocalId>(parts.size()) == a.rows, "partition has ", parts.size(),
                 " entries for a graph of ", a.rows, " vertices");
  STRATA_REQUIRE(num_parts >= 1, "number of parts must be positive, got ", num_parts);
  PartitionQuality q;
  q.parts = num_parts;
  q.owned.assign(static_cast<std::size_t>(num_parts), 0);
  q.halo.assign(static_cast<std::size_t>(num_parts), 0);
  std::vector<std::int64_t> entries(static_cast<std::size_t>(num_parts), 0);
  for (LocalId u = 0; u < a.rows; ++u) {
    STRATA_REQUIRE(parts[u] >= 0 && parts[u] < num_parts, "vertex ", u, " has part ", parts[u],
                   " outside [0, ", num_parts, ")");
    ++q.owned[parts[u]];
    entries[parts[u]] += a.degree(u);
    for (LocalId v : a.neighbors(u))
      if (u < v && parts[u] != parts[v]) ++q.edge_cut;
  }
  // A pair (v, q) is exactly "v is in q's halo", so halo sizes come from the same keys.
  const std::vector<std::int64_t> keys = boundary_pair_keys(a, parts, num_parts);
  for (std::int64_t key : keys) ++q.halo[key % num_parts];
  q.boundary_pairs = static_cast<std::int64_t>(keys.size());
  q.vertex_balance = max_over_average(q.owned, static_cast<double>(a.rows));
  q.edge_balance = max_over_average(entries, static_cast<double>(a.nnz()));
  q.replication_factor =
      a.rows == 0 ? 1.0 : static_cast<double>(a.rows + q.boundary_pairs) / a.rows;
  return q;
}

}  // namespace strata
