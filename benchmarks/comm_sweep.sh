#!/usr/bin/env bash
# Communication volume of every mode, predicted by `strata comm-volume`: datasets x ranks
# (2, 4, 8) x layers (2 to 32) x METIS and random parts, for a GCN and a GCNII of hidden 64.
# Measured bytes of real runs sit next to these in end_to_end.csv and pipeline_vs_graph.csv
# (the tests hold them equal). Usage: benchmarks/comm_sweep.sh [--quick]
#   --quick: coauthor_cs and the synthetic graph only, 4 and 8 ranks.
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS, STRATA_RESULTS,
# STRATA_WORK (caches; default /tmp/strata-comm).
set -euo pipefail
cd "$(dirname "$0")/.."
strata=$PWD/${STRATA_BUILD:-build-bench}/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
work=${STRATA_WORK:-/tmp/strata-comm}
raw=$results/raw_comm_sweep
names=(cora citeseer amazon_computers coauthor_cs coauthor_physics tolokers)
ranks=(2 4 8)
if [[ ${1:-} == --quick ]]; then
  names=(coauthor_cs) ranks=(4 8)
fi
mkdir -p "$work" "$raw"
rm -f "$raw"/*.json
log() { echo "[$(date -u +%T)] $*" >&2; }

sweep() {  # name, cache
  local p model
  for p in "${ranks[@]}"; do
    for model in gcn gcnii; do
      "$strata" comm-volume --dataset "$2" --parts "$p" --layers 2,4,8,16,32 --hidden 64 \
        --model $model --method metis,random --json >"$raw/$1-$model-p$p.json"
    done
  done
  log "comm-volume $1: ${ranks[*]} ranks done"
}

for name in "${names[@]}"; do
  if [[ ! -d $datasets/$name ]]; then
    log "$name skipped ($datasets/$name not found)"
    continue
  fi
  "$strata" convert --dataset "$datasets/$name" --out "$work/$name.strata" >/dev/null
  sweep "$name" "$work/$name.strata"
done
"$strata" convert --dataset synthetic --nodes 100000 --avg-degree 10 --features 64 --classes 8 \
  --out "$work/sbm100k.strata" >/dev/null
sweep sbm100k "$work/sbm100k.strata"

python3 benchmarks/comm_sweep.py "$raw" "$results" \
  "commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); hidden 64; bytes per training epoch summed over ranks"
