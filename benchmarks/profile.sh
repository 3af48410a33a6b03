#!/usr/bin/env bash
# Where a CPU epoch goes (`strata train --profile`): for a 2-layer GCN and a 16-layer
# GCNII (hidden 64) on coauthor_physics (binarized raw features, as pyg_compare.sh), as
# loaded and RCM-numbered, and on a 1M-vertex R-MAT graph, each operation's time, traffic and arithmetic per epoch against
# its floor on this machine's roofline (measured once into the raw folder), and the epoch
# time of 10 plain runs (median epoch after 2 warm-up epochs) for its run-to-run spread.
# With STRATA_BEFORE=COMMAND (another build's strata, e.g. a wrapper that sets its library
# path) every run is made with both builds, one after the other, for a side-by-side ratio.
# Usage: benchmarks/profile.sh [--quick]   (--quick: a 20000-vertex synthetic graph, 3 runs)
# The roofline is measured three times, a few seconds apart, and each rate's best kept: one
# measurement on this shared machine once came out at half the rates, doubling every floor.
# Environment: STRATA_BUILD (default build-bench), STRATA_RESULTS, STRATA_DATASETS,
# STRATA_THREADS (2), STRATA_RUNS (10), STRATA_BEFORE, STRATA_PROFILE_OPS_ONLY (1: the
# profiled runs and the roofline again, the timed runs' CSV kept as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
threads=${STRATA_THREADS:-2} runs=${STRATA_RUNS:-10}
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads OMP_WAIT_POLICY=passive
raw=$results/raw_profile
# name|dataset arguments|epochs
graphs=("rmat-1M|--dataset rmat --nodes 1048576|4")
if [[ ${1:-} == --quick ]]; then
  results=benchmarks/results/quick raw=$results/raw_profile runs=3
  graphs=("synthetic-20k|--dataset synthetic --nodes 20000|5")
elif physics_raw "$raw"; then
  # The same graph numbered by reverse Cuthill-McKee (`strata convert --order rcm`, written
  # by this build; the before build reads the file as it reads any cache).
  [[ -f $raw/physics-rcm.strata ]] || "$strata" convert --dataset "$datasets/coauthor_physics" \
    --order rcm --out "$raw/physics-rcm.strata" >/dev/null
  graphs=("physics|${dataset_args[*]}|10"
    "physics-rcm|--dataset $raw/physics-rcm.strata --row-normalize 0|10" "${graphs[@]}")
else
  echo "profile: coauthor_physics missing; only the R-MAT graph" >&2
fi
builds=("after|$strata")
[[ -z ${STRATA_BEFORE:-} ]] || builds=("before|$STRATA_BEFORE" "${builds[@]}")
mkdir -p "$raw"
roofline=$raw/roofline.txt
# Measured afresh: three tiny profiled runs each measure it into a file of their own.
rm -f "$roofline" "$raw"/roofline-*.txt
for i in 1 2 3; do
  "$strata" train --mode local --dataset synthetic --nodes 2000 --epochs 1 --profile \
    --roofline "$raw/roofline-$i.txt" >/dev/null
  sleep 5
done
python3 benchmarks/profile_rows.py roofline "$raw"/roofline-*.txt >"$roofline"
runs_csv=$results/profile_runs.csv ops_csv=$results/profile_ops.csv
ops_only=${STRATA_PROFILE_OPS_ONLY:-0}
header="# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $threads threads, OMP_WAIT_POLICY passive, hidden 64${STRATA_BEFORE:+; before: $STRATA_BEFORE}"
((ops_only)) || { echo "$header; median epoch (training step) after 2 warm-up epochs, $runs runs per build"
  echo "build,graph,model,layers,run,epoch_s"; } >"$runs_csv"
{ echo "$header; --profile: per epoch over the epochs after the first (step and evaluation); roofline (best of 3): $(grep -v '^#' "$roofline" | tr '\n' ' ')"
  echo "build,graph,model,layers,op,calls,seconds,bytes,gather_bytes,flops,floor_s"; } >"$ops_csv"
log() { echo "[$(date -u +%T)] $*" >&2; }
for g in "${graphs[@]}"; do
  IFS='|' read -r name args epochs <<<"$g"
  for m in gcn:2 gcnii:16; do
    model=${m%:*} layers=${m#*:}
    # shellcheck disable=SC2086 # args holds several words
    set -- train --mode local $args --model "$model" --layers "$layers" --hidden 64 \
      --epochs "$epochs" --threads "$threads"
    for b in "${builds[@]}"; do
      build=${b%%|*} binary=${b#*|} tag=$name-$model$layers-${b%%|*}
      $binary "$@" --profile --roofline "$roofline" --metrics "$raw/$tag.jsonl" >"$raw/$tag.log"
      python3 benchmarks/profile_rows.py ops "$raw/$tag.jsonl" "$build,$name,$model,$layers" \
        >>"$ops_csv"
    done
    ((ops_only)) && continue
    for ((r = 0; r < runs; r++)); do
      for b in "${builds[@]}"; do
        ${b#*|} "$@" --metrics "$raw/run.jsonl" >/dev/null
        python3 benchmarks/profile_rows.py run "$raw/run.jsonl" "${b%%|*},$name,$model,$layers,$r" \
          >>"$runs_csv"
      done
    done
    log "$name $m: $(tail -n 1 "$runs_csv")"
  done
done
python3 benchmarks/profile_rows.py summary "$runs_csv" "$ops_csv"
