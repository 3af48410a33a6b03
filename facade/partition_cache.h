// One partition per (method, parts) for `strata comm-volume`, however many depths and
// factorizations are compared: the assignment and its boundary pairs B.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conversions.h"
#include "strata/comm_volume.h"
#include "strata/partition/quality.h"

namespace strata {

class PartitionCache {
 public:
  PartitionCache(const Dataset& d, const CommVolumeRequest& request) : d_(d), request_(request) {}

  struct Entry {
    std::vector<std::int32_t> part_of;
    std::int64_t boundary_pairs = 0;
  };

  const Entry& get(const std::string& method, int parts) {
    auto [it, fresh] = cache_.try_emplace({method, parts});
    if (fresh && parts > 1) {
      Config::Partition p = request_.partition;
      p.method = method;
      it->second.part_of =
          partition_graph(d_.adjacency, to_partition_options(p, parts, request_.seed));
      it->second.boundary_pairs =
          measure_partition(d_.adjacency, it->second.part_of, parts).boundary_pairs;
    } else if (fresh) {
      it->second.part_of.assign(static_cast<std::size_t>(d_.adjacency.rows), 0);
    }
    return it->second;
  }
  std::int64_t boundary_pairs(const std::string& method, int parts) {
    return get(method, parts).boundary_pairs;
  }

 private:
  const Dataset& d_;
  const CommVolumeRequest& request_;
  std::map<std::pair<std::string, int>, Entry> cache_;
};

}  // namespace strata
