#!/usr/bin/env bash
# Epoch time of a 2-layer GCN on coauthor_physics (if present) and a synthetic 1M-vertex
# graph, and the kernel benchmarks (SpMM bandwidth against STREAM, GEMM) on a 1M-vertex
# R-MAT graph, all in one run; prints, writes no CSV (kernels.sh and end_to_end.sh record
# these figures). Usage: benchmarks/epoch_time.sh [--quick]   (--quick: 100,000 vertices)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
build=${STRATA_BUILD:-build-bench}
strata=$build/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
nodes=1000000
[[ ${1:-} == --quick ]] && nodes=100000
median_epoch() { awk '/^epoch/ {print $(NF-1)}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%F)"
if [[ -d $datasets/coauthor_physics ]]; then
  t=$($strata train --mode local --dataset "$datasets/coauthor_physics" --binarize --hidden 64 --epochs 10 | median_epoch)
  echo "coauthor_physics 2-layer GCN hidden 64: median epoch ${t} s"
else
  echo "coauthor_physics: skipped ($datasets/coauthor_physics not found)"
fi
t=$($strata train --mode local --dataset rmat --nodes "$nodes" --avg-degree 20 --features 64 --classes 8 \
    --hidden 64 --epochs 5 | median_epoch)
echo "R-MAT $nodes vertices, avg degree 20, 64 features, 2-layer GCN hidden 64: median epoch ${t} s"
STRATA_BENCH_NODES=$nodes STRATA_BENCH_DEGREE=20 STRATA_DATASETS=$datasets \
  "$build/bin/bench_kernels" --benchmark_filter='spmm/rmat/|gemm/' --benchmark_format=csv
