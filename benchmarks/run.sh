#!/usr/bin/env bash
# Every benchmark, one after another, then the plots:
#   kernels.sh          SpMM GB/s vs width (fraction of STREAM), GEMM GFLOP/s
#   comm_sweep.sh       comm-volume: datasets x ranks x layers x METIS/random, every mode
#   end_to_end.sh       every mode at P = 1, 2, 4: epoch time, time to target, memory, bytes
#   pipeline_vs_graph.sh  measured bytes and times of both modes at L = 8, 16, 32 (physics)
#   pyg_compare.sh      the same models in PyTorch Geometric (its own venv; skips offline)
# Usage: benchmarks/run.sh [--quick]
#   --quick: small sizes and few epochs, into benchmarks/results/quick (under 10 minutes on
#   2 cores once the build and the PyG venv exist).
# Environment: STRATA_BUILD (default build-bench: a Release build without CUDA, made here
# if missing), STRATA_DATASETS (default ../shared/datasets), STRATA_SKIP (names of steps
# to leave out, e.g. "pyg_compare kernels").
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
results=benchmarks/results
if [[ ${1:-} == --quick ]]; then
  quick=(--quick)
  results=benchmarks/results/quick
elif [[ $# -gt 0 ]]; then
  echo "usage: benchmarks/run.sh [--quick]" >&2
  exit 2
fi
export STRATA_BUILD=${STRATA_BUILD:-build-bench} STRATA_RESULTS=$results
log() { echo "[$(date -u +%T)] $*" >&2; }

STRATA_WITH_BENCH=1 bash scripts/install-deps.sh
if [[ ! -f $STRATA_BUILD/build.ninja ]]; then
  cmake -S . -B "$STRATA_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_WITH_CUDA=OFF >/dev/null
fi
cmake --build "$STRATA_BUILD" -j "$(nproc)" --target strata_cli bench_kernels >/dev/null
mkdir -p "$results"

start=$(date +%s)
for step in kernels comm_sweep end_to_end pipeline_vs_graph pyg_compare; do
  if [[ " ${STRATA_SKIP:-} " == *" $step "* ]]; then
    log "$step: skipped (STRATA_SKIP)"
    continue
  fi
  t0=$(date +%s)
  log "$step: start"
  STRATA_WORK=/tmp/strata-bench-$step bash "benchmarks/$step.sh" "${quick[@]}"
  log "$step: $(($(date +%s) - t0)) s"
done
python3 benchmarks/plots.py "$results"
log "all benchmarks: $(($(date +%s) - start)) s; CSVs and PNGs in $results"
