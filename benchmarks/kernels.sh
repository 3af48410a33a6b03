#!/usr/bin/env bash
# Kernel benchmarks: SpMM at widths 16 to 512 on an R-MAT graph and on coauthor_physics,
# in GB/s and as a fraction of a STREAM triad measured in the same process, and GEMM in
# GFLOP/s, with all the machine's cores (OpenMP). Writes RESULTS/kernels.csv.
# Usage: benchmarks/kernels.sh [--quick]   (--quick: R-MAT 2^17 vertices, 0.05 s each)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS, STRATA_RESULTS,
# STRATA_BENCH_NODES (R-MAT vertices, default 2^20), STRATA_BENCH_DEGREE (default 16).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench=${STRATA_BUILD:-build-bench}/bin/bench_kernels
results=${STRATA_RESULTS:-benchmarks/results}
export STRATA_DATASETS=${STRATA_DATASETS:-../shared/datasets}
export STRATA_BENCH_NODES=${STRATA_BENCH_NODES:-1048576} STRATA_BENCH_MIN_TIME=0.3
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
if [[ ${1:-} == --quick ]]; then
  export STRATA_BENCH_NODES=131072 STRATA_BENCH_MIN_TIME=0.05
fi
mkdir -p "$results"
"$bench" --benchmark_format=csv >"$results/raw_kernels.csv" 2>"$results/raw_kernels.log"
python3 benchmarks/kernels.py "$results/raw_kernels.csv" "$results/raw_kernels.log" \
  "$results/kernels.csv" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); R-MAT $STRATA_BENCH_NODES vertices"
