// The rates Config::profile's floors are drawn against: this machine's memory bandwidth at
// each working-set size (caches, then memory), the rate a sparse product's gathered rows
// come at (from the nearest cache, at best), and its GEMM rate at the widths GNN layers use.
#pragma once
#include <string>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/result.h"

namespace strata {

// The stream rate at a working set of `bytes`, interpolated between the measured sizes on
// a log scale (the smallest's below them, the largest's above); 0 without rates.
double stream_rate_at(const std::vector<StreamRate>& stream, double bytes);

// Measured with this rank's OpenMP threads on `backend` (the CPU's; for another device
// no rate is measured and source is "none"), or read from `path` if it exists; a
// measured roofline is written to `path` when one is given. A malformed file is an input
// error naming it and the line.
Roofline roofline_for(const kernels::Backend& backend, const std::string& path);

}  // namespace strata
