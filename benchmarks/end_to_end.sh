#!/usr/bin/env bash
# End to end: every mode at P = 1, 2, 4 ranks on coauthor_physics and on synthetic SBM
# graphs of 1M and 4M vertices. Per run: median epoch time and its compute/wait split,
# training time until validation accuracy first reaches a target, test accuracy, bytes
# per epoch (measured, and predicted by `strata comm-volume`), peak resident memory per
# rank (measured, and the pipeline/hybrid estimate).
# Usage: benchmarks/end_to_end.sh [--quick]
#   --quick: physics 5 epochs, one synthetic graph of 100k vertices, 4 epochs.
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS, STRATA_RESULTS,
# STRATA_WORK (caches, several GB; default /tmp/strata-e2e), STRATA_E2E_SIZES (synthetic
# vertex counts, default "1000000 4000000"), STRATA_PHYSICS_EPOCHS (default 60),
# STRATA_SYNTHETIC_EPOCHS (default 10). Targets: validation 0.93 (physics), 0.8 (SBM).
# Model: a 4-layer GCN, hidden 64 (4 layers so that 4 pipeline stages exist), dropout 0.5,
# one OpenMP thread per rank; pipeline and hybrid use the default 4 chunks.
# Runs one at a time: times are comparable only within one run of this script.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
build=${STRATA_BUILD:-build-bench}
strata=$PWD/$build/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
work=${STRATA_WORK:-/tmp/strata-e2e}
raw=$results/raw_end_to_end
if [[ ${1:-} == --quick ]]; then
  sizes=(100000) physics_epochs=5 synthetic_epochs=4
else
  sizes=(${STRATA_E2E_SIZES:-1000000 4000000}) physics_epochs=${STRATA_PHYSICS_EPOCHS:-60}
  synthetic_epochs=${STRATA_SYNTHETIC_EPOCHS:-10}
fi
model=(--layers 4 --hidden 64)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
mkdir -p "$work" "$raw"
rm -f "$raw"/*
log() { echo "[$(date -u +%T)] $*" >&2; }

# tag, ranks, then train options: one run, its metrics and log in $raw.
train() {
  local tag=$1 ranks=$2 need
  shift 2
  need=$(predicted_job_bytes "$tag")
  if ((need > mem_limit)); then
    echo -e "${tag}\t$need\t$mem_limit" >>"$raw/skipped.tsv"
    log "$tag: skipped, needs about $((need >> 20)) MiB with every rank here (limit $((mem_limit >> 20)) MiB)"
    return
  fi
  mpirun -np "$ranks" "$strata" train "$@" "${model[@]}" --metrics "$raw/$tag.jsonl" \
    >"$raw/$tag.log" 2>&1
  log "$tag: $(grep '^final' "$raw/$tag.log")"
  record_job_bytes "$tag"
}

# All ranks run on this machine, so a job must fit its memory. A run's need is predicted
# from the same run on the previous (smaller) synthetic graph: its summed peak resident
# bytes per vertex, times this graph's vertices. Runs predicted past 80% of MemTotal are
# skipped and listed in skipped.tsv (pipeline and hybrid ranks hold the whole graph).
# STRATA_E2E_MEM_LIMIT (bytes) overrides the limit.
mem_limit=${STRATA_E2E_MEM_LIMIT:-$(($(awk '/^MemTotal/ {print $2}' /proc/meminfo) * 1024 * 8 / 10))}
declare -A bytes_per_vertex=()
vertices=0
predicted_job_bytes() {  # tag (name-mode-pP) -> bytes, 0 when nothing is known
  local run=${1#*-}
  awk -v b="${bytes_per_vertex[$run]:-0}" -v n="$vertices" 'BEGIN {printf "%.0f", b * n}'
}
record_job_bytes() {
  local run=${1#*-}
  bytes_per_vertex[$run]=$(python3 -c '
import json, sys
final = [json.loads(l) for l in open(sys.argv[1]) if "\"final\"" in l][-1]
print(sum(final.get("peak_resident_bytes", [0])) / int(sys.argv[2]))' "$raw/$1.jsonl" "$vertices")
}

# name, cache, epochs, target: the six runs, and the predictions for P = 2 and 4. Features
# are binary (physics: binarized) and not row-normalized.
run_dataset() {
  local name=$1 cache=$2 epochs=$3 target=$4 p
  local data=(--dataset "$cache" --epochs "$epochs" --binarize --row-normalize 0)
  echo -e "$name\t$target" >>"$raw/targets.tsv"
  train "$name-local-p1" 1 --mode local "${data[@]}"
  for p in 2 4; do
    train "$name-graph-p$p" $p --mode graph "${data[@]}"
    train "$name-pipeline-p$p" $p --mode pipeline "${data[@]}"
    "$strata" comm-volume --dataset "$cache" --row-normalize 0 "${model[@]}" --parts $p \
      --json >"$raw/$name-predict-p$p.json"
  done
  train "$name-hybrid-p4" 4 --mode hybrid --parts 2 "${data[@]}"
}

if [[ -d $datasets/coauthor_physics ]]; then
  "$strata" convert --dataset "$datasets/coauthor_physics" --binarize --row-normalize 0 \
    --out "$work/physics.strata" >/dev/null
  vertices=34493
  run_dataset physics "$work/physics.strata" "$physics_epochs" 0.93
  bytes_per_vertex=()  # physics (8,415 features) says nothing about the SBM graphs
else
  log "coauthor_physics skipped ($datasets/coauthor_physics not found)"
fi
for n in "${sizes[@]}"; do
  name=sbm$((n / 1000))k
  log "generate $name (SBM, avg degree 10, 64 features, 8 classes, feature signal 0.3)"
  "$strata" convert --dataset synthetic --nodes "$n" --avg-degree 10 --features 64 --classes 8 \
    --feature-signal 0.3 --out "$work/$name.strata" >/dev/null
  vertices=$n
  run_dataset "$name" "$work/$name.strata" "$synthetic_epochs" 0.8
  rm -f "$work/$name.strata"
done

python3 benchmarks/end_to_end.py "$raw" "$results" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ)"
