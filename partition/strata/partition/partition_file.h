// Partition files in gpmetis format: N lines, line i holds the part id of vertex i.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/core/types.h"

namespace strata {

void write_partition_file(const std::string& path, std::span<const std::int32_t> parts);

// Input errors name path:line for a wrong line count, a non-integer, or an id outside
// [0, num_parts); a part with no vertex is an error too (it names the part).
std::vector<std::int32_t> read_partition_file(const std::string& path, GlobalId n, int num_parts);

}  // namespace strata
