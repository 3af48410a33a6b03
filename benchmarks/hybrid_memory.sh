#!/usr/bin/env bash
# A graph whose pipeline stages do not fit a memory limit trains in hybrid mode on the
# same 4 ranks: `strata comm-volume --memory-per-rank` predicts each stages x parts layout,
# then pipeline (4 x 1) and hybrid (2 x 2) train 2 epochs and report each rank's peak
# resident memory next to its estimate.
# Usage: benchmarks/hybrid_memory.sh [--quick]   (--quick: 20,000 vertices, limit 250MB)
# Environment: STRATA_BUILD (default build-bench), STRATA_RESULTS (default
# benchmarks/results), STRATA_LIMIT (default 750MB). Writes hybrid_memory.csv and
# hybrid_memory_layouts.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
strata=${STRATA_BUILD:-build-bench}/bin/strata
limit=${STRATA_LIMIT:-750MB}
nodes=100000
if [[ ${1:-} == --quick ]]; then
  nodes=20000 limit=${STRATA_LIMIT:-250MB}
fi
results=${STRATA_RESULTS:-benchmarks/results}
mkdir -p "$results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
graph=(--dataset synthetic --nodes "$nodes" --avg-degree 4 --layers 4 --hidden 256)

"$strata" comm-volume "${graph[@]}" --parts 4 --chunks 4 --memory-per-rank "$limit" \
  >"$results/hybrid_memory_layouts.txt"
cat "$results/hybrid_memory_layouts.txt"

echo "# $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); limit $limit" \
  >"$results/hybrid_memory.csv"
echo "mode,rank,peak_resident_mb,estimated_mb,epoch_s,bytes_per_epoch_mb" >>"$results/hybrid_memory.csv"
for mode in "pipeline" "hybrid --parts 2"; do
  name=${mode%% *}
  mpirun -np 4 "$strata" train "${graph[@]}" --mode $mode --chunks 4 --epochs 2 >"$tmp/$name.log" 2>&1
  grep -E "^stage|^memory" "$tmp/$name.log" | sed "s/^/$name: /"
  epoch=$(awk '/^epoch +1 /{ print $9, $(NF-2) }' "$tmp/$name.log")
  sed -n 's/^memory, rank \([0-9]*\): peak resident \([0-9.]*\) MB, estimated \([0-9.]*\) MB.*/\1,\2,\3/p' \
    "$tmp/$name.log" | while IFS=, read -r rank peak est; do
    echo "$name,$rank,$peak,$est,${epoch// /,}" >>"$results/hybrid_memory.csv"
  done
done
cat "$results/hybrid_memory.csv"
