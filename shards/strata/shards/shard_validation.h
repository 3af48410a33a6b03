// Checks a deserialized shard before anything trusts its ids and sizes.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

struct Shard;

void check_shard_header(std::int64_t part, std::int64_t parts, std::int64_t global_nodes,
                        std::int64_t owned, std::int64_t halo, std::int64_t classes,
                        const std::string& source);
// Ids in range and ordered as build_local_graph makes them, finite degrees, 0/1 masks.
void check_shard_contents(const Shard& shard, const std::string& source);

}  // namespace strata
