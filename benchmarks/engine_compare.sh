#!/usr/bin/env bash
# CPU epoch time of two builds side by side, in one run: the commit before the one-engine
# change and after it, or any two strata binaries. coauthor_physics (binarized raw
# features), hidden 64: a 2-layer GCN and a 16-layer GCNII, in local mode (2 threads) and
# graph mode on 2 ranks (1 thread each). Each configuration runs `rounds` times with the
# two builds alternating; a run's figure is its median epoch after two warm-up epochs, and
# the table gives the median over rounds and after / before.
# Usage: benchmarks/engine_compare.sh BEFORE_STRATA AFTER_STRATA [rounds (default 5)]
#        benchmarks/engine_compare.sh --base REV [rounds]   (builds REV into build-base in a
#        git worktree, CUDA as the main build, and compares it with build/bin/strata)
# Environment: STRATA_DATASETS (default ../shared/datasets), STRATA_RESULTS (default
# benchmarks/results). Skips (exit 0) when coauthor_physics is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
data=${STRATA_DATASETS:-../shared/datasets}/coauthor_physics
results=${STRATA_RESULTS:-benchmarks/results}
log() { echo "[$(date -u +%T)] $*" >&2; }

if [[ ${1:-} == --base ]]; then
  rev=$2
  shift 2
  worktree=$PWD/build-base/src
  if [[ ! -d $worktree ]]; then
    git worktree add --detach "$worktree" "$rev" >/dev/null
  else
    git -C "$worktree" checkout -q --detach "$rev"
  fi
  log "building $rev in build-base"
  cmake -S "$worktree" -B build-base/build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-base/build --target strata_cli >/dev/null
  set -- "build-base/build/bin/strata" "build/bin/strata" "$@"
fi
before=${1:?usage: engine_compare.sh BEFORE_STRATA AFTER_STRATA [rounds]}
after=${2:?usage: engine_compare.sh BEFORE_STRATA AFTER_STRATA [rounds]}
rounds=${3:-5}
if [[ ! -d $data ]]; then
  echo "engine_compare: skipped ($data not found)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$after" convert --dataset "$data" --out "$tmp/physics.strata" >/dev/null
export OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# median_epoch METRICS: the median epoch_s after the first two epochs.
median_epoch() {
  python3 -c '
import json, statistics, sys
e = [json.loads(l)["epoch_s"] for l in open(sys.argv[1]) if "\"event\":\"epoch\"" in l.replace(" ", "")]
print(f"{statistics.median(e[2:]):.5f}")' "$1"
}

# run BINARY MODE MODEL LAYERS EPOCHS: one training run's median epoch.
run() {
  local strata=$1 mode=$2 model=$3 layers=$4 epochs=$5
  local args=(train --dataset "$tmp/physics.strata" --binarize --row-normalize 0 --hidden 64
    --model "$model" --layers "$layers" --epochs "$epochs" --metrics "$tmp/m.jsonl")
  rm -f "$tmp/m.jsonl"
  if [[ $mode == local ]]; then
    OMP_NUM_THREADS=2 "$strata" "${args[@]}" --mode local >/dev/null
  else
    OMP_NUM_THREADS=1 mpirun -np 2 --bind-to none "$strata" "${args[@]}" --mode graph >/dev/null
  fi
  median_epoch "$tmp/m.jsonl"
}

configs=("local gcn 2 30" "local gcnii 16 12" "graph gcn 2 30" "graph gcnii 16 12")
csv=$results/engine_compare.csv
mkdir -p "$results"
{
  echo "# machine: $(machine_line); before: $before ($(git -C "$(dirname "$before")" rev-parse --short HEAD 2>/dev/null || echo ?)), after: $after (commit $(git rev-parse --short HEAD)); $(date -u +%F); $rounds rounds, builds alternating"
  echo "mode,model,layers,round,before_epoch_s,after_epoch_s"
} >"$csv"
for config in "${configs[@]}"; do
  read -r mode model layers epochs <<<"$config"
  for ((r = 0; r < rounds; ++r)); do
    b=$(run "$before" "$mode" "$model" "$layers" "$epochs")
    a=$(run "$after" "$mode" "$model" "$layers" "$epochs")
    log "$mode $model-$layers round $r: before $b s, after $a s"
    echo "$mode,$model,$layers,$r,$b,$a" >>"$csv"
  done
done
python3 - "$csv" <<'EOF'
import csv, statistics, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
print("| mode | model | before (median epoch s) | after | after / before |")
print("|---|---|---|---|---|")
for key in dict.fromkeys((r["mode"], r["model"], r["layers"]) for r in rows):
    mine = [r for r in rows if (r["mode"], r["model"], r["layers"]) == key]
    b = statistics.median(float(r["before_epoch_s"]) for r in mine)
    a = statistics.median(float(r["after_epoch_s"]) for r in mine)
    print(f"| {key[0]} | {key[1]}-{key[2]} | {b:.4f} | {a:.4f} | {a / b:.3f} |")
EOF
