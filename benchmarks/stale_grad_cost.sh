#!/usr/bin/env bash
# What each --stale-grad rule costs in time and bytes: 16-layer GCNII (hidden 64) on Coauthor
# CS (binarized, not row-normalized), pipeline mode, 2 ranks x 1 thread, 8 chunks. The rules
# run in turn, round after round, so that a noisy machine affects them alike; a run's
# figure is its median epoch after two warm-up epochs, and its bytes per epoch by category.
# Usage: benchmarks/stale_grad_cost.sh [--quick]   (--quick: 1 round of 6 epochs; else 3 of 12)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (../shared/datasets),
# STRATA_RESULTS (benchmarks/results). Writes RESULTS/stale_grad_cost.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
rounds=3 epochs=12
[[ ${1:-} == --quick ]] && rounds=1 epochs=6
[[ -d $datasets/coauthor_cs ]] || { echo "stale_grad_cost skipped: $datasets/coauthor_cs not found" >&2; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$strata" convert --dataset "$datasets/coauthor_cs" --binarize --row-normalize 0 \
  --out "$tmp/cs.strata" >/dev/null
rows=$tmp/rows.csv
echo "round,stale_grad,median_epoch_s,stage_fwd,stage_bwd,eval,total_bytes" >"$rows"
for ((round = 0; round < rounds; ++round)); do
  for rule in exact drop delay; do
    mpirun -np 2 --bind-to none "$strata" train --mode pipeline --dataset "$tmp/cs.strata" \
      --row-normalize 0 --model gcnii --layers 16 --hidden 64 --chunks 8 --epochs "$epochs" \
      --stale-grad "$rule" --metrics "$tmp/m.jsonl" >/dev/null
    python3 - "$round" "$rule" "$tmp/m.jsonl" >>"$rows" <<'PY'
import json, statistics, sys
round_, rule, path = sys.argv[1:]
epochs = [e for e in map(json.loads, open(path)) if e.get("event") == "epoch"]
b = epochs[-1]["comm_bytes"]
print(f"{round_},{rule},{statistics.median(e['epoch_s'] for e in epochs[2:]):.4f},"
      f"{b['stage_fwd']},{b['stage_bwd']},{b['eval']},{sum(b.values())}")
PY
    echo "[$(date -u +%T)] round $round, $rule: $(tail -n 1 "$rows")" >&2
  done
done
{
  echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); coauthor_cs raw, gcnii 16x64, 2 ranks x 1 thread, 8 chunks, $epochs epochs"
  cat "$rows"
} >"$results/stale_grad_cost.csv"
echo "wrote $results/stale_grad_cost.csv"
