// `strata train --profile`: a Backend that runs another's operations, waits for each, and
// adds its time, memory traffic and arithmetic to a profile under the operation's name.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "strata/kernels/backend.h"

namespace strata::kernels {

// What one call must move and compute, whatever the kernel: every operand read or written
// once (`bytes`, the compulsory traffic), the rows a sparse product reads once per stored
// entry (`gather_bytes`, from a matrix of `gathered_from` bytes: cache-resident when it
// fits; 0 where unknown), and multiply-adds x 2.
struct OpCost {
  double bytes = 0, gather_bytes = 0, flops = 0, gathered_from = 0;
  OpCost& operator+=(const OpCost& o) {
    bytes += o.bytes, gather_bytes += o.gather_bytes, flops += o.flops;
    gathered_from = std::max(gathered_from, o.gathered_from);
    return *this;
  }
};

struct OpRecord {
  std::int64_t calls = 0;
  double seconds = 0;
  OpCost cost;
  double floor_s = 0;  // the calls' floors (FloorOf) summed
};

// The least time a call of this cost can take on the machine (0: unknown). Taken per call,
// since a call's working set decides whether it streams from the caches or from memory.
using FloorOf = std::function<double(const OpCost&)>;

// By operation: "spmm", "gemm", "relu_forward", ... (the Backend's names; the sparse
// feature products "features_multiply", ...).
using OpProfile = std::map<std::string, OpRecord>;

// `inner` and `profile` must outlive the backend and what it makes. Each operation waits
// for the work queued before and by it (a CUDA backend's stream), so a profiled epoch
// runs without the overlap of queued kernels and is a little slower than a plain one.
std::unique_ptr<Backend> make_profiling_backend(const Backend& inner, OpProfile& profile,
                                                FloorOf floor_of = {});

}  // namespace strata::kernels
