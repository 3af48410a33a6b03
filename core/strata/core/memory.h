// Resident memory of this process, as the kernel reports it.
#pragma once
#include <cstdint>

namespace strata {

// Peak resident set size so far (getrusage ru_maxrss), in bytes.
std::int64_t peak_resident_bytes();
// Current resident set size (/proc/self/statm), in bytes; 0 where unavailable.
std::int64_t current_resident_bytes();

}  // namespace strata
