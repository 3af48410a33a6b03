#!/usr/bin/env bash
# Graph-mode (halo exchange) scaling: epoch time, compute/comm split and bytes per epoch for
# P = 1, 2, 4 ranks, METIS against random partitions, on coauthor_physics and a synthetic
# R-MAT graph of 2^21 vertices; bytes are checked against `strata comm-volume`.
# Usage: benchmarks/graph_mode.sh [--quick]
#   --quick: R-MAT 2^17 vertices, physics 5 epochs, one repeat (a smoke run, about 2 min).
# Environment: STRATA_BUILD (build dir, default build-bench), STRATA_DATASETS
# (default ../shared/datasets), STRATA_RESULTS (CSV dir, default benchmarks/results),
# STRATA_WORK (caches and shards, several GB for the big graph; default /tmp/strata-graph-mode),
# STRATA_REPEATS (default 2), STRATA_RMAT_NODES (default 2097152), STRATA_COMMIT (the commit the
# binary was built from, for the CSV header; default HEAD).
# Every configuration runs once per repeat, repeats interleaved, so ratios are taken under
# the same machine load; graph_mode.py reports the median and the spread over repeats.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
quick=0
[[ ${1:-} == --quick ]] && quick=1
build=${STRATA_BUILD:-build-bench}
strata=$build/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
work=${STRATA_WORK:-/tmp/strata-graph-mode}
hidden=64 layers=2
if ((quick)); then
  repeats=${STRATA_REPEATS:-1} rmat_nodes=${STRATA_RMAT_NODES:-131072} physics_epochs=5
else
  repeats=${STRATA_REPEATS:-2} rmat_nodes=${STRATA_RMAT_NODES:-2097152} physics_epochs=10
fi
rmat_epochs=5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
raw=$results/raw_graph_mode
mkdir -p "$work" "$raw"
rm -f "$raw"/*.jsonl "$raw"/*.json "$raw"/runs.tsv
log() { echo "[$(date -u +%T)] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }

# dataset name -> .strata cache (one load and preprocessing for every later step)
declare -A cache epochs
prepare_cache() {  # name, then `strata convert` dataset options
  local name=$1 t0
  shift
  cache[$name]=$work/$name.strata
  t0=$(now)
  $strata convert "$@" --out "${cache[$name]}" >/dev/null
  echo -e "$name\tconvert\t0\t-\t$(elapsed "$t0")" >>"$raw/prep.tsv"
}

# Shards per (P, method), and the partition report (METIS time, edge cut, B) as JSON.
prepare_shards() {  # name, P, method
  local name=$1 p=$2 method=$3 dir=$work/$1-p$2-$3 t0
  mkdir -p "$dir"
  t0=$(now)
  $strata partition --dataset "${cache[$name]}" --parts "$p" --method "$method" --shards "$dir" \
    --json >"$raw/partition-$name-p$p-$method.json"
  echo -e "$name\tpartition+shards\t$p\t$method\t$(elapsed "$t0")" >>"$raw/prep.tsv"
}

predict() {  # name, P: comm-volume for both methods
  $strata comm-volume --dataset "${cache[$1]}" --parts "$2" --layers $layers --hidden $hidden \
    --method metis,random --json >"$raw/predict-$1-p$2.json"
}

train() {  # name, P, method, threads, repeat
  local name=$1 p=$2 method=$3 threads=$4 rep=$5 t0 tag
  tag=$name-p$p-$method-t$threads-r$rep
  t0=$(now)
  # mpirun binds each rank to one core by default: a threaded rank needs --bind-to none.
  local bind=()
  ((threads > 1)) && bind=(--bind-to none)
  OMP_NUM_THREADS=$threads mpirun -np "$p" "${bind[@]}" "$strata" train --mode graph --shards "$work/$name-p$p-$method" \
    --layers $layers --hidden $hidden --epochs "${epochs[$name]}" --metrics "$raw/$tag.jsonl" \
    >"$raw/$tag.log" 2>&1
  echo -e "$name\t$p\t$method\t$threads\t$rep\t$(elapsed "$t0")" >>"$raw/runs.tsv"
  log "$tag done ($(tail -1 "$raw/runs.tsv" | cut -f6) s wall)"
}

rm -f "$raw/prep.tsv"
names=()
if [[ -d $datasets/coauthor_physics ]]; then
  log "convert coauthor_physics (--binarize)"
  prepare_cache physics --dataset "$datasets/coauthor_physics" --binarize
  epochs[physics]=$physics_epochs
  names+=(physics)
else
  log "coauthor_physics skipped ($datasets/coauthor_physics not found)"
fi
rmat=rmat$rmat_nodes
log "generate $rmat (avg degree 10, 64 features, 8 classes)"
prepare_cache "$rmat" --dataset rmat --nodes "$rmat_nodes" --avg-degree 10 --features 64 --classes 8
epochs[$rmat]=$rmat_epochs
names+=("$rmat")

for name in "${names[@]}"; do
  prepare_shards "$name" 1 range
  for p in 2 4; do
    for method in metis random; do
      log "partition $name P=$p $method"
      prepare_shards "$name" $p $method
    done
  done
  for p in 1 2 4; do
    log "comm-volume $name P=$p"
    predict "$name" $p
  done
done

for rep in $(seq 1 "$repeats"); do
  for name in "${names[@]}"; do
    train "$name" 1 range 1 "$rep"
    train "$name" 1 range 2 "$rep"
    for p in 2 4; do
      for method in metis random; do train "$name" $p $method 1 "$rep"; done
    done
  done
done

python3 benchmarks/graph_mode.py "$raw" "$results" \
  "machine: $(machine_line); commit ${STRATA_COMMIT:-$(git rev-parse --short HEAD)}; $(date -u +%FT%TZ)"
