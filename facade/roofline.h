// The rates Config::profile's floors are drawn against: this machine's memory bandwidth,
// its rate of gathering rows at random, and its GEMM rate at the widths GNN layers use.
#pragma once
#include <string>

#include "strata/kernels/backend.h"

namespace strata {

struct Roofline {
  double stream_bytes_per_s = 0;  // STREAM triad, a = b + 3 c over 128 MiB arrays
  double gather_bytes_per_s = 0;  // rows of 64 floats at random from a 32 MiB matrix
  double gemm_flops_per_s = 0;    // (32768 x 64) x (64 x 64) through the backend's GEMM
  std::string source;             // "measured", the file's path, or "none"
};

// Measured with this rank's OpenMP threads on `backend` (the CPU's; for another device
// no rate is measured and source is "none"), or read from `path` if it exists; a
// measured roofline is written to `path` when one is given. A malformed file is an input
// error naming it and the line.
Roofline roofline_for(const kernels::Backend& backend, const std::string& path);

}  // namespace strata
