#!/usr/bin/env bash
# Accuracy of the chunked pipeline and of hybrid mode against one process: gcnii, 16
# layers, hidden 64, on coauthor_cs and amazon_computers, 4 ranks (pipeline: S = 4 stages;
# hybrid: S = 2 stages x G = 2 parts), K = 8 chunks, seeds 0-2, and the convergence
# techniques (exact warm-up, alternating chunk order, history smoothing).
# Usage: benchmarks/pipeline_accuracy.sh [--quick]   (--quick: coauthor_cs, 1 seed, 40 epochs)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (../shared/datasets),
# STRATA_RESULTS (benchmarks/results), STRATA_EPOCHS (default 100), STRATA_SEEDS (0 1 2),
# STRATA_VARIANTS (run for every seed, default "local pipeline hybrid"), STRATA_NAMES
# (datasets), STRATA_EXTRA_SEEDS (seeds for the technique variants, default 0), STRATA_JOBS (runs at
# once, default 2). Features are binarized and not row-normalized: with row-normalized
# bag-of-words input a 16-layer GCNII barely moves in 200 epochs (val 0.84 on coauthor_cs),
# with raw binary input it fits the training set by epoch 20.
# Writes RESULTS/raw_pipeline_accuracy/*.jsonl and RESULTS/pipeline_accuracy.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
build=${STRATA_BUILD:-build-bench}
strata=$PWD/$build/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
raw=$results/raw_pipeline_accuracy
epochs=${STRATA_EPOCHS:-100}
seeds=(${STRATA_SEEDS:-0 1 2})
extra_seeds=(${STRATA_EXTRA_SEEDS-0})  # set and empty: none
names=(${STRATA_NAMES:-coauthor_cs amazon_computers})
main_variants=(${STRATA_VARIANTS:-local pipeline hybrid})
if [[ ${1:-} == --quick ]]; then
  epochs=40 seeds=(0) extra_seeds=() names=(coauthor_cs)
fi
jobs=${STRATA_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
mkdir -p "$raw"
model=(--model gcnii --layers 16 --hidden 64 --epochs "$epochs" --row-normalize 0)
declare -A variant=(
  [local]="--mode local"
  [pipeline]="--mode pipeline --chunks 8"
  [hybrid]="--mode hybrid --parts 2 --chunks 8"
  [pipeline_alternate]="--mode pipeline --chunks 8 --alternate-order"
  [pipeline_warmup]="--mode pipeline --chunks 8 --warmup 20"
  [pipeline_smooth]="--mode pipeline --chunks 8 --smoothing 0.5"
)

run() {  # dataset variant seed
  local cache=$raw/$1.strata tag=$1-$2-s$3 launcher=()
  [[ ${variant[$2]} == *pipeline* || ${variant[$2]} == *hybrid* ]] && launcher=(mpirun -np 4)
  "${launcher[@]}" "$strata" train --dataset "$cache" ${variant[$2]} "${model[@]}" --seed "$3" \
    --metrics "$raw/$tag.jsonl" >"$raw/$tag.log" 2>&1
  echo "[$(date -u +%T)] $tag: $(tail -n 2 "$raw/$tag.log" | head -n 1)" >&2
}

for name in "${names[@]}"; do
  [[ -d $datasets/$name ]] || { echo "$name skipped: $datasets/$name not found" >&2; continue; }
  "$strata" convert --dataset "$datasets/$name" --binarize --row-normalize 0 \
    --out "$raw/$name.strata" >/dev/null
  runs=()
  for seed in "${seeds[@]}"; do
    for v in "${main_variants[@]}"; do runs+=("$v $seed"); done
  done
  for seed in "${extra_seeds[@]}"; do
    runs+=("pipeline_alternate $seed" "pipeline_warmup $seed" "pipeline_smooth $seed")
  done
  for r in "${runs[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
    run "$name" $r &
  done
done
wait
python3 benchmarks/pipeline_accuracy.py "$raw" "$results" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $epochs epochs"
