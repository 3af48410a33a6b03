#include "strata/plan/part_load.h"

#include <algorithm>

#include "strata/core/error.h"

namespace strata {
namespace {

double feature_nonzeros(const FeatureMatrix& f, LocalId v) {
  if (!f.is_sparse()) return static_cast<double>(f.cols());
  return static_cast<double>(f.sparse().degree(v));
}

}  // namespace

std::vector<PartLoad> part_loads(const Dataset& data, std::span<const std::int32_t> part_of,
                                 int parts, bool self_loops) {
  const Csr& a = data.adjacency;
  STRATA_CHECK(part_of.size() == static_cast<std::size_t>(a.rows), "a partition of ",
               part_of.size(), " vertices for a graph of ", a.rows);
  std::vector<PartLoad> loads(static_cast<std::size_t>(parts));
  std::vector<std::int32_t> remote;  // the other parts v's neighbours lie in
  for (LocalId v = 0; v < a.rows; ++v) {
    PartLoad& own = loads[static_cast<std::size_t>(part_of[v])];
    own.work.rows += 1;
    own.work.entries += static_cast<double>(a.degree(v)) + (self_loops ? 1 : 0);
    own.work.feature_nonzeros += feature_nonzeros(data.features, v);
    remote.clear();
    for (LocalId u : a.neighbors(v))
      if (part_of[u] != part_of[v]) remote.push_back(part_of[u]);
    std::sort(remote.begin(), remote.end());
    remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
    own.interior += remote.empty() ? 1 : 0;
    own.sent += static_cast<double>(remote.size());
    for (std::int32_t q : remote) loads[static_cast<std::size_t>(q)].halo += 1;
  }
  for (PartLoad& load : loads)
    if (load.work.rows > 0) load.interior /= load.work.rows;
  return loads;
}

double stale_read_fraction(const Csr& adjacency, std::span<const std::int32_t> chunk_of) {
  double reads = 0, stale = 0;
  for (LocalId u = 0; u < adjacency.rows; ++u)
    for (LocalId v : adjacency.neighbors(u)) {
      if (v == u) continue;
      reads += 1;
      stale += chunk_of[v] > chunk_of[u] ? 1 : 0;
    }
  return reads > 0 ? stale / reads : 0.0;
}

}  // namespace strata
