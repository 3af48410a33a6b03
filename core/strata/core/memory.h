// Resident memory of this process, as the kernel reports it.
#pragma once
#include <cstdint>

namespace strata {

// Peak resident set size so far (getrusage ru_maxrss), in bytes.
std::int64_t peak_resident_bytes();
// Current resident set size (/proc/self/statm), in bytes; 0 where unavailable.
std::int64_t current_resident_bytes();
// Fixes glibc malloc's mmap threshold at its initial 128 KiB, so that every array past it
// has a mapping of its own, returned to the system when freed. Left to itself, glibc raises
// the threshold to the largest array freed (up to 32 MiB), and arrays below it then come
// from the heap, which keeps what is freed: a hybrid rank on a 1M-vertex graph peaked
// 80 MB higher that way (1.08 of its estimate; 1.03 with it fixed). No effect without glibc.
void return_freed_arrays_promptly();

}  // namespace strata
