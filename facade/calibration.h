// The kernel rates `strata plan` predicts with: measured on this machine (each rank's
// threads, the dataset's own Â and features, the model's width), read from a file written
// by an earlier run, or, for CUDA without a file, assumed for an H100-class GPU.
#pragma once
#include <string>

#include "strata/datasets/dataset.h"
#include "strata/plan.h"

namespace strata {

// The best of a few timed products of each kind, on the calling thread's OpenMP threads.
KernelRateSet measure_cpu_rates(const Dataset& data, int width);

// One GPU of the H100 class (HBM3 at about 3 TB/s, fp32 at about 50 TFLOP/s), from
// bandwidth and peak arithmetic alone: an assumption, labelled so.
KernelRateSet assumed_gpu_rates();

// FILE: "sparse_s 3.1e-10" lines, one per rate of KernelRateSet; an input error naming
// FILE and the line for anything else.
KernelRateSet read_rates(const std::string& path);
void write_rates(const std::string& path, const KernelRateSet& rates);

// The rates for a request: --calibration FILE if it exists, else measured (cpu: on `data`,
// or without it on a synthetic graph of 100,000 vertices; written to FILE if one is named)
// or assumed (cuda).
KernelRateSet rates_for(const PlanRequest& request, const Dataset* data);

}  // namespace strata
