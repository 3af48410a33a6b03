#!/usr/bin/env bash
# Deep GCNII in pipeline and hybrid mode against one process, seed by seed: the tables of
# the README's "Pipeline accuracy at depth". For each dataset, depth and feature form:
# local (one process), pipeline (4 stages x 8 chunks), hybrid (2 stages x 2 parts, 8
# chunks), all with the defaults (--stale-grad exact), and pipeline_drop / pipeline_delay
# (the other stale-gradient rules) for the before-and-after comparison; graph (4 parts,
# exact up to the order of float sums) measures how far two exact runs' accuracies part.
# Usage: benchmarks/pipeline_depth.sh [--quick]   (--quick: coauthor_cs, 4 layers, 1 seed, 20 epochs)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (../shared/datasets),
# STRATA_RESULTS (benchmarks/results), STRATA_NAMES (default "coauthor_cs amazon_computers
# coauthor_physics"), STRATA_LAYERS ("16 32"), STRATA_FEATURES ("raw": binarized, not
# row-normalized; "rownorm": the loader's default), STRATA_SEEDS ("0 1 2 3 4"),
# STRATA_VARIANTS ("local pipeline hybrid"), STRATA_EPOCHS (100), STRATA_JOBS (runs at
# once, 2), STRATA_TRAIN_ARGS (more `strata train` options, e.g. "--dropout 0.6"). Runs
# already in RAW are kept, so the grid can be filled in several sittings. GCNII's Cora
# setting: STRATA_NAMES=cora STRATA_LAYERS=64 STRATA_EPOCHS=600 STRATA_TRAIN_ARGS="--dropout 0.6"
# STRATA_VARIANTS="local pipeline" STRATA_FEATURES=rownorm (about 3 minutes a run here).
# Writes RESULTS/raw_pipeline_depth/*.jsonl and RESULTS/pipeline_depth.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
strata=$PWD/${STRATA_BUILD:-build-bench}/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
raw=$results/raw_pipeline_depth
names=(${STRATA_NAMES:-coauthor_cs amazon_computers coauthor_physics})
depths=(${STRATA_LAYERS:-16 32})
forms=(${STRATA_FEATURES:-raw})
seeds=(${STRATA_SEEDS:-0 1 2 3 4})
variants=(${STRATA_VARIANTS:-local pipeline hybrid})
epochs=${STRATA_EPOCHS:-100}
if [[ ${1:-} == --quick ]]; then
  names=(coauthor_cs) depths=(4) seeds=(0) epochs=20 results=benchmarks/results/quick
  raw=$results/raw_pipeline_depth
fi
jobs=${STRATA_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
mkdir -p "$raw"
declare -A variant=(
  [local]="--mode local"
  [graph]="--mode graph"
  [pipeline]="--mode pipeline --chunks 8"
  [hybrid]="--mode hybrid --parts 2 --chunks 8"
  [pipeline_drop]="--mode pipeline --chunks 8 --stale-grad drop"
  [pipeline_delay]="--mode pipeline --chunks 8 --stale-grad delay"
)
declare -A form=([raw]="--binarize --row-normalize 0" [rownorm]="")
declare -A train_form=([raw]="--row-normalize 0" [rownorm]="")  # a cache is normalized on load

run() {  # dataset form layers variant seed
  local tag=$1-$2-L$3-$4-s$5 launcher=()
  [[ -s $raw/$tag.jsonl ]] && grep -q '"final"' "$raw/$tag.jsonl" && return
  [[ $4 != local ]] && launcher=(mpirun -np 4)
  "${launcher[@]}" "$strata" train --dataset "$raw/$1-$2.strata" ${variant[$4]} --model gcnii \
    --layers "$3" --hidden 64 --epochs "$epochs" --seed "$5" ${train_form[$2]} ${STRATA_TRAIN_ARGS:-} --metrics "$raw/$tag.jsonl" \
    >"$raw/$tag.log" 2>&1
  echo "[$(date -u +%T)] $tag: $(tail -n 2 "$raw/$tag.log" | head -n 1)" >&2
}

for name in "${names[@]}"; do
  [[ -d $datasets/$name ]] || { echo "$name skipped: $datasets/$name not found" >&2; continue; }
  for f in "${forms[@]}"; do
    [[ -f $raw/$name-$f.strata ]] ||
      "$strata" convert --dataset "$datasets/$name" ${form[$f]} --out "$raw/$name-$f.strata" >/dev/null
    for layers in "${depths[@]}"; do
      for seed in "${seeds[@]}"; do
        for v in "${variants[@]}"; do
          while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
          run "$name" "$f" "$layers" "$v" "$seed" &
        done
      done
    done
  done
done
wait
python3 benchmarks/pipeline_depth.py "$raw" "$results" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $epochs epochs"
