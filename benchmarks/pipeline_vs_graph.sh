#!/usr/bin/env bash
# Graph mode against pipeline mode on coauthor_physics, P = S = 4 ranks, gcnii at
# L = 8, 16, 32 layers (hidden 64): measured bytes per epoch of both modes, epoch time,
# and training time until validation accuracy first reaches a fixed target.
# Usage: benchmarks/pipeline_vs_graph.sh [--quick]   (--quick: L = 8 only, 10 epochs)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS, STRATA_RESULTS,
# STRATA_EPOCHS (default 40), STRATA_LAYERS (default "8 16 32"), STRATA_TARGET (validation
# accuracy, default 0.95), STRATA_CHUNKS (pipeline chunks, default 8).
# Runs one at a time: epoch times are only comparable on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
build=${STRATA_BUILD:-build-bench}
strata=$PWD/$build/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
raw=$results/raw_pipeline_vs_graph
epochs=${STRATA_EPOCHS:-40}
layers=(${STRATA_LAYERS:-8 16 32})
[[ ${1:-} == --quick ]] && epochs=10 layers=(8)
chunks=${STRATA_CHUNKS:-8}
target=${STRATA_TARGET:-0.95}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
if [[ ! -d $datasets/coauthor_physics ]]; then
  echo "skipped: $datasets/coauthor_physics not found" >&2
  exit 0
fi
mkdir -p "$raw"
rm -f "$raw"/*.jsonl "$raw"/*.log
cache=$raw/physics.strata
"$strata" convert --dataset "$datasets/coauthor_physics" --binarize --row-normalize 0 \
  --out "$cache" >/dev/null
common=(--dataset "$cache" --row-normalize 0 --model gcnii --hidden 64 --epochs "$epochs")
for l in "${layers[@]}"; do
  for mode in graph pipeline; do
    extra=()
    [[ $mode == pipeline ]] && extra=(--chunks "$chunks")
    tag=$mode-L$l
    mpirun -np 4 "$strata" train --mode $mode --layers "$l" "${common[@]}" "${extra[@]}" \
      --metrics "$raw/$tag.jsonl" >"$raw/$tag.log" 2>&1
    echo "[$(date -u +%T)] $tag: $(grep '^final' "$raw/$tag.log")" >&2
  done
  "$strata" comm-volume --dataset "$cache" --row-normalize 0 --model gcnii --hidden 64 \
    --layers "$l" --parts 4 --json >"$raw/predict-L$l.json"
done
python3 benchmarks/pipeline_vs_graph.py "$raw" "$results" "$target" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $epochs epochs, K=$chunks"
