#include "strata/shards/shard_validation.h"

#include <cmath>

#include "strata/shards/shard.h"

namespace strata {
namespace {

constexpr std::int64_t kMaxIds = std::int64_t{1} << 31;

void check_ids(const LocalGraph& g, GlobalId n, const std::string& source) {
  for (std::size_t l = 0; l < g.local_to_global.size(); ++l) {
    const GlobalId v = g.local_to_global[l];
    STRATA_REQUIRE(v >= 0 && v < n, source, ": local vertex ", l, " has global id ", v,
                   " outside [0, ", n, ")");
    STRATA_REQUIRE(l == 0 || static_cast<LocalId>(l) >= g.owned || g.local_to_global[l - 1] < v,
                   source, ": owned global ids are not ascending at local vertex ", l);
  }
}

void check_plan(const LocalGraph& g, const std::string& source) {
  std::int64_t received = 0;
  for (std::size_t q = 0; q < g.plan.send.size(); ++q) {
    for (LocalId l : g.plan.send[q])
      STRATA_REQUIRE(l >= 0 && l < g.owned, source, ": send list for part ", q, " names local ", l,
                     ", not an owned vertex");
    for (LocalId l : g.plan.recv[q])
      STRATA_REQUIRE(l >= g.owned && l < g.owned + g.halo, source, ": receive list for part ", q,
                     " names local ", l, ", not a halo vertex");
    STRATA_REQUIRE(g.plan.send[q].empty() || static_cast<int>(q) != g.part, source, ": part ", q,
                   " sends to itself");
    received += static_cast<std::int64_t>(g.plan.recv[q].size());
  }
  STRATA_REQUIRE(received == g.halo, source, ": receive lists cover ", received, " of ", g.halo,
                 " halo vertices");
}

void check_masks_and_labels(const Shard& s, const std::string& source) {
  for (std::size_t i = 0; i < s.labels.size(); ++i)
    STRATA_REQUIRE(s.labels[i] >= 0 && s.labels[i] < s.num_classes, source, ": label ", s.labels[i],
                   " of local vertex ", i, " outside [0, ", s.num_classes, ")");
  for (const auto* mask : {&s.train_mask, &s.val_mask, &s.test_mask})
    for (std::size_t i = 0; i < mask->size(); ++i)
      STRATA_REQUIRE((*mask)[i] <= 1, source, ": split mask value ", int{(*mask)[i]},
                     " at local vertex ", i, " is not 0 or 1");
}

}  // namespace

void check_shard_header(std::int64_t part, std::int64_t parts, std::int64_t global_nodes,
                        std::int64_t owned, std::int64_t halo, std::int64_t classes,
                        const std::string& source) {
  STRATA_REQUIRE(parts >= 1 && parts < (1 << 20) && part >= 0 && part < parts, source,
                 ": bad part ", part, " of ", parts);
  STRATA_REQUIRE(global_nodes >= 0 && global_nodes < kMaxIds && owned >= 0 && halo >= 0 &&
                     owned <= global_nodes && halo <= global_nodes - owned,
                 source, ": implausible sizes (", owned, " owned, ", halo, " halo of ",
                 global_nodes, " vertices)");
  STRATA_REQUIRE(classes >= 1 && classes < (1 << 20), source, ": implausible class count ",
                 classes);
}

void check_shard_contents(const Shard& s, const std::string& source) {
  const LocalGraph& g = s.graph;
  check_ids(g, s.global_nodes, source);
  validate(g.adjacency, source.c_str());
  for (std::size_t l = 0; l < g.degree_plus_one.size(); ++l)
    STRATA_REQUIRE(std::isfinite(g.degree_plus_one[l]) && g.degree_plus_one[l] >= 1.0f, source,
                   ": degree of local vertex ", l, " is ", g.degree_plus_one[l]);
  check_plan(g, source);
  STRATA_REQUIRE(s.features.rows() == g.owned, source, ": ", s.features.rows(),
                 " feature rows for ", g.owned, " owned vertices");
  check_masks_and_labels(s, source);
}

}  // namespace strata
