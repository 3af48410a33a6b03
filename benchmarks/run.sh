#!/usr/bin/env bash
# Every benchmark, one after another, then the plots and the README's figures:
#   kernels.sh            SpMM GB/s vs width (fraction of STREAM), GEMM GFLOP/s
#   loading.sh            gzip CSV against the binary cache: time and memory
#   comm_sweep.sh         comm-volume: datasets x ranks x layers x METIS/random, every mode
#   comm_table.sh         the README's comm-volume table (physics, hidden 256)
#   graph_mode.sh         graph-mode scaling over P = 1, 2, 4 and METIS/random
#   end_to_end.sh         every mode at P = 1, 2, 4: epoch time, time to target, memory, bytes
#   pipeline_vs_graph.sh  measured bytes and times of both modes at L = 8, 16, 32 (physics)
#   pipeline_accuracy.sh  chunked pipeline and hybrid accuracy against one process
#   pipeline_depth.sh     deep GCNII, 5 seeds: one process vs pipeline vs hybrid, stale rules
#   stale_grad_cost.sh    epoch time and bytes of each --stale-grad rule (2 ranks)
#   overlap.sh            graph mode, halo overlapped or not, on the emulated cluster (root)
#   cluster.sh            every mode on the emulated cluster: hosts x Gbit/s x depth (root)
#   compression.sh        --compress bf16/int8: accuracy vs float32, packing cost, cluster time
#   plan_check.sh         strata plan's predicted epoch times against the emulated cluster (root)
#   plan_simulated.sh     strata plan --simulate: 64 and 256 GPUs, 10M and 100M vertices (a model)
#   hybrid_memory.sh      a layout that does not fit, trained as pipeline and as hybrid
#   memory.sh             peak memory per rank against the estimate; --recompute's cost
#   accuracy.sh           Cora, CiteSeer, Coauthor CS accuracy over 5 seeds
#   gcnii_depth.sh        GCNII accuracy against depth on Cora
#   determinism.sh        what changes a run's numbers (threads, ranks, modes)
#   threads.sh            threads per rank: 4 ranks with and without OMP_NUM_THREADS
#   profile.sh            strata train --profile: each operation against its floor, run spread
#   epoch_time.sh         epoch times and kernels in one printout (no CSV)
#   lines.sh              lines of code per folder
#   pyg_compare.sh        the same models in PyTorch Geometric (its own venv; skips offline)
#   model_accuracy.sh     GraphSAGE and GIN beside PyG's SAGEConv and GINConv, 5 seeds
#   engine_compare.sh     two builds side by side: only with STRATA_ENGINE_BASE=REV (the
#                         build to compare against), since it builds that commit
# Then plots.py draws the PNGs and figures.py says which README figures the new CSVs move
# (`python3 benchmarks/figures.py write` puts them in).
# Usage: benchmarks/run.sh [--quick]
#   --quick: small sizes and few epochs, into benchmarks/results/quick.
#   --list-missing: exit 1 if a benchmarks/*.sh script is not a step here (make test runs it).
# Environment: STRATA_BUILD (default build-bench: a Release build without CUDA, made here
# if missing), STRATA_DATASETS (default ../shared/datasets), STRATA_SKIP (names of steps
# to leave out, e.g. "pyg_compare kernels").
set -euo pipefail
cd "$(dirname "$0")/.."
steps=(kernels loading comm_sweep comm_table graph_mode end_to_end pipeline_vs_graph
  pipeline_accuracy pipeline_depth stale_grad_cost overlap cluster compression plan_check
  plan_simulated hybrid_memory memory accuracy gcnii_depth determinism threads profile epoch_time lines
  pyg_compare model_accuracy engine_compare)
not_steps=(machine run) # sourced by the others; this script

if [[ ${1:-} == --list-missing ]]; then
  missing=0
  for script in benchmarks/*.sh; do
    name=$(basename "$script" .sh)
    if [[ " ${steps[*]} ${not_steps[*]} " != *" $name "* ]]; then
      echo "benchmarks/run.sh does not run benchmarks/$name.sh: add it to its steps"
      missing=1
    fi
  done
  for step in "${steps[@]}"; do
    [[ -f benchmarks/$step.sh ]] || { echo "benchmarks/run.sh: step $step has no script"; missing=1; }
  done
  [[ $missing -eq 0 ]] && echo "benchmarks/run.sh runs all ${#steps[@]} benchmark scripts"
  exit "$missing"
fi

quick=()
results=benchmarks/results
if [[ ${1:-} == --quick ]]; then
  quick=(--quick)
  results=benchmarks/results/quick
elif [[ $# -gt 0 ]]; then
  echo "usage: benchmarks/run.sh [--quick | --list-missing]" >&2
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
failed=()
for step in "${steps[@]}"; do
  if [[ " ${STRATA_SKIP:-} " == *" $step "* ]]; then
    log "$step: skipped (STRATA_SKIP)"
    continue
  fi
  args=("${quick[@]}")
  if [[ $step == engine_compare ]]; then
    if [[ -z ${STRATA_ENGINE_BASE:-} ]]; then
      log "engine_compare: skipped (set STRATA_ENGINE_BASE=REV to compare with that commit)"
      continue
    fi
    args=(--base "$STRATA_ENGINE_BASE" "$([[ ${#quick[@]} -gt 0 ]] && echo 2 || echo 7)")
  fi
  t0=$(date +%s)
  log "$step: start"
  if STRATA_WORK=/tmp/strata-bench-$step bash "benchmarks/$step.sh" "${args[@]}"; then
    log "$step: $(($(date +%s) - t0)) s"
  else
    log "$step: FAILED after $(($(date +%s) - t0)) s"
    failed+=("$step")
  fi
done
python3 benchmarks/plots.py "$results"
log "all benchmarks: $(($(date +%s) - start)) s; CSVs and PNGs in $results"
if [[ -z ${quick[*]} ]]; then
  python3 benchmarks/figures.py check || log "README figures differ from the new CSVs: python3 benchmarks/figures.py write"
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  log "failed: ${failed[*]}"
  exit 1
fi
