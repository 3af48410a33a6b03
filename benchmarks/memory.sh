#!/usr/bin/env bash
# Peak resident memory per rank, against the estimate, and what it costs in time:
#   load     generating an R-MAT graph (strata info): before and after
#   rmat     a 2-layer GCN (hidden 64, 64 features, 8 classes) on R-MAT graphs of average
#            degree 20, one process: before, after, after with --recompute, after with
#            --storage bf16 (3 epochs)
#   rmat-graph  the largest R-MAT graph in graph mode on 2 ranks, from shards (and the
#            partition's own peak)
#   sbm      benchmarks/end_to_end.sh's graphs and layouts (SBM, avg degree 10, 4-layer GCN,
#            hidden 64, one thread per rank, 4 chunks): before, after, after with --storage
#            bf16 (3 epochs)
#   adjacency  GCN's Â with its values stored (default) against formed from its degrees
#            (--adjacency degrees), the same weights bit for bit: R-MAT graphs as in rmat
#            (the largest also with --recompute, each way), and the first SBM graph in
#            sbm's layouts (3 epochs)
#   history  a chunked pipeline keeping its history in bf16 (--storage bf16, which also
#            stores aggregations; "before" is a build whose bf16 stored aggregations only):
#            the SBM graphs as in sbm (3 epochs), and coauthor_physics, 4-layer GCN, 5
#            seeds, 200 epochs (accuracy, epoch time); on 2 ranks (stages of 2 layers) and 4
#            (of 1; STRATA_HISTORY_RANKS), 4 chunks, one thread per rank
#   recompute  coauthor_physics, 4-layer GCN (layers 1-2 aggregate first, so that there
#            is something to recompute or store), 5 seeds, 200 epochs: accuracy and epoch
#            time by default, with --recompute and with --storage bf16
# A job is skipped when the same run on the previous (smaller) graph predicts more than
# 80% of this machine's memory (STRATA_MEMORY_LIMIT, bytes, overrides it).
# Usage: benchmarks/memory.sh [--quick]
# Environment: STRATA_BUILD, STRATA_RESULTS, STRATA_DATASETS, STRATA_BEFORE (another
# build's strata, e.g. a wrapper that sets its library path; without it the "before" rows
# are left out), STRATA_RMAT_SIZES (default "1000000 2000000 10000000"; before runs stop at
# 2M), STRATA_SBM_SIZES (default "1000000 4000000"), STRATA_WORK (caches, /tmp/strata-memory),
# STRATA_MEMORY_ONLY=graph (the rmat-graph section alone), sbm (the sbm section alone),
# adjacency (the adjacency section alone), history (the history section alone) or rest
# (every section but rmat-graph, adjacency and history). The rmat-graph rows go to
# memory_graph.csv, the sbm rows to memory_sbm.csv, the adjacency rows to
# memory_adjacency.csv, the history rows to memory_history.csv, the others to memory.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
rmat_sizes=(${STRATA_RMAT_SIZES:-1000000 2000000 10000000})
sbm_sizes=(${STRATA_SBM_SIZES:-1000000 4000000})
seeds=(0 1 2 3 4) physics_epochs=200
if [[ ${1:-} == --quick ]]; then
  results=benchmarks/results/quick rmat_sizes=(50000) sbm_sizes=(40000) seeds=(0) physics_epochs=5
fi
work=${STRATA_WORK:-/tmp/strata-memory}
raw=$results/raw_memory
mkdir -p "$work" "$raw"
rm -f "$raw"/*
limit=${STRATA_MEMORY_LIMIT:-$(($(awk '/^MemTotal/ {print $2}' /proc/meminfo) * 1024 * 8 / 10))}
csv=$results/memory.csv
header="# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ)${STRATA_BEFORE:+; before: $STRATA_BEFORE}
section,graph,vertices,mode,P,build,variant,seed,peak_mb_max,peak_mb_sum,estimate_mb_max,bytes_per_vertex,epoch_s,test_acc,skipped"
[[ ${STRATA_MEMORY_ONLY:-} =~ ^(graph|sbm|adjacency|history)$ ]] || echo "$header" >"$csv"
log() { echo "[$(date -u +%T)] $*" >&2; }
builds=("after|$PWD/$strata")
[[ -z ${STRATA_BEFORE:-} ]] || builds=("before|$STRATA_BEFORE" "${builds[@]}")
declare -A per_vertex=()  # "section mode P build options" -> summed peak bytes per vertex

# section graph vertices mode P build binary seed variant train-options... : one run, one
# CSV row; variant is "default", "recompute" (adds --recompute), "bf16" (--storage bf16),
# "degrees" (--adjacency degrees) or "recompute-degrees" (both).
run() {
  local section=$1 graph=$2 n=$3 mode=$4 p=$5 build=$6 bin=$7 seed=$8 variant=$9
  shift 9
  local key="$section $mode $p $build $variant" tag="$section-$graph-$mode-p$p-$build-$variant-s$seed"
  local extra=()
  case $variant in
    recompute) extra=(--recompute) ;;
    bf16) extra=(--storage bf16) ;;
    degrees) extra=(--adjacency degrees) ;;
    recompute-degrees) extra=(--recompute --adjacency degrees) ;;
  esac
  local need
  need=$(awk -v b="${per_vertex[$key]:-0}" -v n="$n" 'BEGIN {printf "%.0f", b * n}')
  if ((need > limit)); then
    echo "$section,$graph,$n,$mode,$p,$build,$variant,$seed,,,,,,,needs ~$((need >> 30)) GiB" >>"$csv"
    log "$tag: skipped (needs about $((need >> 20)) MiB, limit $((limit >> 20)) MiB)"
    return
  fi
  local launch=()
  [[ $mode == local ]] || launch=(mpirun -np "$p")
  "${launch[@]}" "$bin" train --mode "$mode" --seed "$seed" "$@" "${extra[@]}" \
    --metrics "$raw/$tag.jsonl" \
    >"$raw/$tag.log" 2>&1 || { log "$tag: failed"; tail -n 5 "$raw/$tag.log" >&2; return; }
  python3 benchmarks/memory_row.py "$raw/$tag.jsonl" "$section,$graph,$n,$mode,$p,$build,$variant,$seed" \
    >>"$csv"
  per_vertex[$key]=$(tail -n 1 "$csv" | cut -d, -f10 | awk -v n="$n" '{printf "%.1f", $1 * 1e6 / n}')
  log "$tag: $(tail -n 1 "$csv")"
}

# Graph mode on 2 ranks for the largest R-MAT graph, from shards written beforehand (so
# that no rank holds the whole graph; the partitioner's own peak is the partition row), by
# METIS (variant "default") and by Fennel streaming (variant "fennel").
graph_rmat() {  # into memory_graph.csv (run() appends to $csv, dynamically scoped)
  local n=${rmat_sizes[-1]} shards=$work/rmat-shards csv=$results/memory_graph.csv method variant
  echo "$header" >"$csv"
  for method in metis fennel; do
    variant=default
    [[ $method == metis ]] || variant=$method
    rm -rf "$shards"
    /usr/bin/time -f "%M %e" -o "$raw/partition-$method.time" "$PWD/$strata" partition \
      --dataset rmat --nodes "$n" --avg-degree 20 --features 64 --classes 8 --parts 2 \
      --method "$method" --shards "$shards" >"$raw/partition-$method.log" 2>&1
    read -r peak_kb seconds <"$raw/partition-$method.time"
    echo "partition,rmat$((n / 1000))k,$n,partition,1,after,$variant,0,$((peak_kb / 1000)),$((peak_kb / 1000)),,$((peak_kb * 1000 / n)),$seconds,," >>"$csv"
    log "partition rmat $n $method: peak $((peak_kb / 1000)) MB, $seconds s"
    export OMP_NUM_THREADS=1
    run rmat-graph "rmat$((n / 1000))k" "$n" graph 2 after "$PWD/$strata" 0 "$variant" \
      --shards "$shards" --hidden 64 --epochs 3
    rm -rf "$shards"
  done
}
# end_to_end.sh's SBM graphs and layouts, into memory_sbm.csv (run() appends to $csv).
sbm_layouts() {
  local csv=$results/memory_sbm.csv n name b build bin variant p data
  echo "$header" >"$csv"
  export OMP_NUM_THREADS=1
  for n in "${sbm_sizes[@]}"; do
    name=sbm$((n / 1000))k
    log "generate $name (SBM, avg degree 10, 64 features, 8 classes, feature signal 0.3)"
    "$PWD/$strata" convert --dataset synthetic --nodes "$n" --avg-degree 10 --features 64 \
      --classes 8 --feature-signal 0.3 --out "$work/$name.strata" >/dev/null
    data=(--dataset "$work/$name.strata" --binarize --row-normalize 0 --layers 4 --hidden 64
      --epochs 3)
    for b in "${builds[@]}" "bf16|$PWD/$strata"; do
      build=${b%%|*} bin=${b#*|} variant=default
      [[ $build == bf16 ]] && build=after variant=bf16
      run sbm "$name" "$n" local 1 "$build" "$bin" 0 "$variant" "${data[@]}"
      for p in 2 4; do
        run sbm "$name" "$n" graph "$p" "$build" "$bin" 0 "$variant" "${data[@]}"
        run sbm "$name" "$n" pipeline "$p" "$build" "$bin" 0 "$variant" "${data[@]}"
      done
      run sbm "$name" "$n" hybrid 4 "$build" "$bin" 0 "$variant" "${data[@]}" --parts 2
    done
    rm -f "$work/$name.strata"
  done
}
# Â stored against formed from its degrees, into memory_adjacency.csv (run() appends to
# $csv): R-MAT in one process on 2 threads, SBM's first graph in every layout on 1.
adjacency_variants() {
  local csv=$results/memory_adjacency.csv n name p variant data
  echo "$header" >"$csv"
  export OMP_NUM_THREADS=2
  for n in "${rmat_sizes[@]}"; do
    local variants=(default degrees)
    [[ $n == "${rmat_sizes[-1]}" ]] && variants+=(recompute recompute-degrees)
    for variant in "${variants[@]}"; do
      run adjacency "rmat$((n / 1000))k" "$n" local 1 after "$PWD/$strata" 0 "$variant" \
        --dataset rmat --nodes "$n" --avg-degree 20 --features 64 --classes 8 --hidden 64 \
        --layers 2 --epochs 3
    done
  done
  export OMP_NUM_THREADS=1
  n=${sbm_sizes[0]} name=sbm$((${sbm_sizes[0]} / 1000))k
  "$PWD/$strata" convert --dataset synthetic --nodes "$n" --avg-degree 10 --features 64 \
    --classes 8 --feature-signal 0.3 --out "$work/$name.strata" >/dev/null
  data=(--dataset "$work/$name.strata" --binarize --row-normalize 0 --layers 4 --hidden 64
    --epochs 3)
  for variant in default degrees; do
    run adjacency "$name" "$n" local 1 after "$PWD/$strata" 0 "$variant" "${data[@]}"
    run adjacency "$name" "$n" graph 2 after "$PWD/$strata" 0 "$variant" "${data[@]}"
    run adjacency "$name" "$n" pipeline 4 after "$PWD/$strata" 0 "$variant" "${data[@]}"
    run adjacency "$name" "$n" hybrid 4 after "$PWD/$strata" 0 "$variant" "${data[@]}" --parts 2
  done
  rm -f "$work/$name.strata"
}
# A pipeline's history in bf16, into memory_history.csv (run() appends to $csv): fp32
# (default), and --storage bf16 with each build.
history_variants() {
  local csv=$results/memory_history.csv n name p seed data
  local ranks=(${STRATA_HISTORY_RANKS:-2 4})
  echo "$header" >"$csv"
  export OMP_NUM_THREADS=1
  for n in "${sbm_sizes[@]}"; do
    name=sbm$((n / 1000))k
    "$PWD/$strata" convert --dataset synthetic --nodes "$n" --avg-degree 10 --features 64 \
      --classes 8 --feature-signal 0.3 --out "$work/$name.strata" >/dev/null
    data=(--dataset "$work/$name.strata" --binarize --row-normalize 0 --layers 4 --hidden 64
      --epochs 3 --chunks 4)
    for p in "${ranks[@]}"; do history_runs "$name" "$n" "$p" 0 "${data[@]}"; done
    rm -f "$work/$name.strata"
  done
  physics_raw "$work" || { log "history: coauthor_physics missing, skipped"; return; }
  for p in "${ranks[@]}"; do
    for seed in "${seeds[@]}"; do
      history_runs physics 34493 "$p" "$seed" "${dataset_args[@]}" --layers 4 --hidden 64 \
        --epochs "$physics_epochs" --chunks 4
    done
  done
}
# graph n P seed options...: fp32, then --storage bf16 with each build.
history_runs() {
  local graph=$1 n=$2 p=$3 seed=$4 b build bin
  shift 4
  run history "$graph" "$n" pipeline "$p" after "$PWD/$strata" "$seed" default "$@"
  for b in "${builds[@]}"; do
    build=${b%%|*} bin=${b#*|}
    run history "$graph" "$n" pipeline "$p" "$build" "$bin" "$seed" bf16 "$@"
  done
}
if [[ ${STRATA_MEMORY_ONLY:-} == history ]]; then  # this section alone
  history_variants
  log "wrote $results/memory_history.csv"
  exit
fi
if [[ ${STRATA_MEMORY_ONLY:-} == adjacency ]]; then  # this section alone
  adjacency_variants
  log "wrote $results/memory_adjacency.csv"
  exit
fi
if [[ ${STRATA_MEMORY_ONLY:-} == graph ]]; then  # this section alone
  graph_rmat
  log "wrote $results/memory_graph.csv"
  exit
fi
if [[ ${STRATA_MEMORY_ONLY:-} == sbm ]]; then  # this section alone
  sbm_layouts
  log "wrote $results/memory_sbm.csv"
  exit
fi

# Generating the graph alone (`strata info`): peak resident memory of the process.
for n in "${rmat_sizes[@]}"; do
  for b in "${builds[@]}"; do
    build=${b%%|*} bin=${b#*|}
    /usr/bin/time -f "%M" -o "$raw/load-$n-$build.time" "$bin" info --dataset rmat --nodes "$n" \
      --avg-degree 20 --features 64 --classes 8 >"$raw/load-$n-$build.log" 2>&1
    peak_kb=$(tail -n 1 "$raw/load-$n-$build.time")
    echo "load,rmat$((n / 1000))k,$n,info,1,$build,default,0,$((peak_kb / 1000)),$((peak_kb / 1000)),,$((peak_kb * 1000 / n)),,," >>"$csv"
    log "load rmat $n $build: peak $((peak_kb / 1000)) MB"
  done
done

gcn2=(--hidden 64 --layers 2 --epochs 3)
for n in "${rmat_sizes[@]}"; do
  rmat=(--dataset rmat --nodes "$n" --avg-degree 20 --features 64 --classes 8)
  for b in "${builds[@]}"; do
    build=${b%%|*} bin=${b#*|}
    export OMP_NUM_THREADS=2
    [[ $build == before && $n -gt 2000000 ]] && continue  # about 3 KB per vertex
    run rmat "rmat$((n / 1000))k" "$n" local 1 "$build" "$bin" 0 default "${rmat[@]}" "${gcn2[@]}"
    [[ $build == after ]] || continue
    for variant in recompute bf16; do
      run rmat "rmat$((n / 1000))k" "$n" local 1 "$build" "$bin" 0 "$variant" "${rmat[@]}" \
        "${gcn2[@]}"
    done
  done
done

export OMP_NUM_THREADS=2
[[ ${STRATA_MEMORY_ONLY:-} == rest ]] || graph_rmat
[[ ${STRATA_MEMORY_ONLY:-} == rest ]] || adjacency_variants
[[ ${STRATA_MEMORY_ONLY:-} == rest ]] || history_variants

sbm_layouts

export OMP_NUM_THREADS=2
if physics_raw "$work"; then
  for seed in "${seeds[@]}"; do
    for variant in default recompute bf16; do
      run recompute physics 34493 local 1 after "$PWD/$strata" "$seed" "$variant" \
        "${dataset_args[@]}" --layers 4 --hidden 64 --epochs "$physics_epochs"
    done
  done
else
  log "recompute: coauthor_physics missing, skipped"
fi
log "wrote $csv"
