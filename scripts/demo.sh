#!/usr/bin/env bash
# make demo: an 8-layer GCNII on the built-in synthetic graph (4,096 vertices in 8 classes,
# 64 binary features whose class signal a model can learn), trained by 4 MPI ranks in graph
# mode, then in pipeline mode (4 stages of 2 layers, 8 chunks), then the two side by side:
# test accuracy and the bytes each mode moved per training epoch.
set -euo pipefail
strata=$1
# The environment of the README's quick start: OpenMPI as root, and 4 ranks on fewer cores.
# Threads per rank are Strata's choice (printed by each run).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
echo "environment: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 (README, Quick start)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--dataset synthetic --feature-signal 0.3 --row-normalize 0 --model gcnii --layers 8
  --hidden 64 --epochs 60)
echo "== graph mode, 4 ranks =="
mpirun -np 4 "$strata" train --mode graph "${common[@]}" --metrics "$tmp/graph.jsonl" |
  grep -E '^threads|^final|^bytes' 
echo "== pipeline mode, 4 stages, 8 chunks =="
mpirun -np 4 "$strata" train --mode pipeline --chunks 8 "${common[@]}" --metrics "$tmp/pipe.jsonl" |
  grep -v '^epoch' | tail -n 8
# test accuracy at the best validation epoch, and training bytes per epoch (every category
# but eval) of the last epoch
summary() {
  local accuracy bytes
  accuracy=$(grep '"event":"final"' "$1" | tail -n 1 | sed 's/.*"test_acc":\([0-9.e+-]*\).*/\1/')
  bytes=$(grep '"event":"epoch"' "$1" | tail -n 1 |
    sed 's/.*"comm_bytes":{\([^}]*\)}.*/\1/' | tr ',' '\n' | grep -v eval |
    awk -F: '{s += $2} END {printf "%.2f", s / 1e6}')
  awk -v a="$accuracy" -v b="$bytes" 'BEGIN {printf "test accuracy %.3f, %s MB sent per epoch\n", a, b}'
}
echo "== side by side (bytes summed over ranks) =="
echo "graph mode:    $(summary "$tmp/graph.jsonl")"
echo "pipeline mode: $(summary "$tmp/pipe.jsonl")"
