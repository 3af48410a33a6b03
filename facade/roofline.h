// The rates Config::profile's floors are drawn against: this machine's memory bandwidth at
// each working-set size (caches, then memory), the rate a sparse product's gathered rows
// come at (from the nearest cache, at best), and its GEMM rate at the widths GNN layers use.
#pragma once
#include <string>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/result.h"

namespace strata {

struct Roofline {
  std::vector<StreamRate> stream;  // triads of 1, 4, 16, 64 and 512 MiB, smallest first
  double gather_bytes_per_s = 0;   // measured: the 1 MiB triad's (rows from the nearest cache)
  double gemm_flops_per_s = 0;     // (32768 x 64) x (64 x 64) through the backend's GEMM
  std::string source;              // "measured", the file's path, or "none"
};

// The stream rate at a working set of `bytes`, interpolated between the measured sizes on
// a log scale (the smallest's below them, the largest's above); 0 without rates.
double stream_rate_at(const std::vector<StreamRate>& stream, double bytes);

// Measured with this rank's OpenMP threads on `backend` (the CPU's; for another device
// no rate is measured and source is "none"), or read from `path` if it exists; a
// measured roofline is written to `path` when one is given. A malformed file is an input
// error naming it and the line.
Roofline roofline_for(const kernels::Backend& backend, const std::string& path);

}  // namespace strata
