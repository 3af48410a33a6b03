#!/usr/bin/env bash
# Compressed rows (--compress none|bf16|int8) against float32: accuracy, the packing cost
# on its own, and time on the emulated cluster.
#  accuracy: 2- and 4-layer GCN on coauthor_cs and coauthor_physics in graph mode (2
#    ranks; hidden 64, binarized features, split random_20_30_seed0, 200 epochs), and
#    16-layer GCNII on coauthor_cs (raw binarized features, hidden 64, 100 epochs) in
#    pipeline (2 stages x 4 chunks) and hybrid mode (2 stages x 2 parts, 4 chunks);
#    seeds 0-4; and one process on the 4-layer GCN on coauthor_cs, against which graph
#    mode in float32 shows how far rounding alone moves accuracy.
#    -> compression_accuracy.csv (one row per run), compression_gaps.csv, compression_control.csv
#  pack: encode + decode of 20,000 listed rows, 1 thread, against the link time the
#    saved bytes take at 25 Gbit/s. -> compression_pack.csv
#  cluster: benchmarks/cluster.sh on 2 hosts at 1 and 10 Gbit/s, GCNII 16 on
#    coauthor_physics, graph and pipeline modes with and without int8 (needs root).
#    -> compression_cluster.csv (planner_choice: the mode comm-volume says moves least)
# Usage: benchmarks/compression.sh [--quick]   (--quick: Cora, 1 seed, 20 epochs, no cluster)
# Environment: STRATA_PARTS ("accuracy pack cluster"), STRATA_SEEDS ("0 1 2 3 4"), STRATA_JOBS
# (parallel runs, 2), STRATA_BUILD, STRATA_DATASETS, STRATA_RESULTS.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
parts=(${STRATA_PARTS:-accuracy pack cluster})
seeds=(${STRATA_SEEDS:-0 1 2 3 4})
jobs=${STRATA_JOBS:-2}
formats=(none bf16 int8)
gcn_args="--hidden 64 --binarize --split random_20_30_seed0 --epochs 200"
settings=(  # dataset model layers mode
  "coauthor_cs gcn 2 graph" "coauthor_cs gcn 4 graph"
  "coauthor_physics gcn 2 graph" "coauthor_physics gcn 4 graph"
  "coauthor_cs gcnii 16 pipeline" "coauthor_cs gcnii 16 hybrid" "coauthor_cs gcn 4 local")
if [[ ${1:-} == --quick ]]; then
  parts=(accuracy pack) seeds=(0) settings=("cora gcn 2 graph")
  gcn_args="--hidden 16 --epochs 20" results=benchmarks/results/quick
fi
raw=$results/raw_compression
mkdir -p "$raw"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
declare -A mode_args=([graph]="--mode graph" [pipeline]="--mode pipeline --chunks 4"
  [hybrid]="--mode hybrid --parts 2 --chunks 4" [local]="--mode local")
declare -A ranks=([graph]=2 [pipeline]=2 [hybrid]=4 [local]=1)

run() {  # dataset model layers mode format seed
  local tag=$1-$2$3-$4-$5-s$6 data=(--dataset "$datasets/$1") args=$gcn_args
  [[ -s $raw/$tag.jsonl ]] && grep -q '"final"' "$raw/$tag.jsonl" && return
  if [[ $2 == gcnii ]]; then
    [[ -f $raw/$1-raw.strata ]] || "$strata" convert --dataset "$datasets/$1" --binarize \
      --row-normalize 0 --out "$raw/$1-raw.strata" >/dev/null
    data=(--dataset "$raw/$1-raw.strata" --row-normalize 0) args="--hidden 64 --epochs 100"
  fi
  # shellcheck disable=SC2086 # mode_args and args are several words
  mpirun -np "${ranks[$4]}" "$strata" train "${data[@]}" ${mode_args[$4]} --model "$2" \
    --layers "$3" $args --seed "$6" --compress "$5" --metrics "$raw/$tag.jsonl" \
    >"$raw/$tag.log" 2>&1
  echo "[$(date -u +%T)] $tag: $(grep '^final' "$raw/$tag.log")" >&2
}

if [[ " ${parts[*]} " == *" accuracy "* ]]; then
  for setting in "${settings[@]}"; do
    read -r name model layers mode <<<"$setting"
    [[ -d $datasets/$name ]] || { echo "compression: $name skipped (not found)" >&2; continue; }
    for seed in "${seeds[@]}"; do
      for format in $([[ $mode == local ]] && echo none || echo "${formats[@]}"); do
        while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
        run "$name" "$model" "$layers" "$mode" "$format" "$seed" &
      done
    done
  done
  wait
  python3 benchmarks/compression.py "$raw" "$results" \
    "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ)"
fi
if [[ " ${parts[*]} " == *" pack "* ]]; then
  {
    echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); 1 thread; best of 20; 20,000 rows listed out of 40,000"
    "${STRATA_BUILD:-build-bench}/bin/bench_codec" 20000 25
  } >"$results/compression_pack.csv"
  column -s, -t < <(grep -v '^#' "$results/compression_pack.csv")
fi
if [[ " ${parts[*]} " == *" cluster "* ]]; then
  STRATA_HOSTS=2 STRATA_GBITS=${STRATA_GBITS:-1 10} STRATA_MODELS=gcnii:16 \
    STRATA_MODES="graph graph_int8 graph_bf16 pipeline pipeline_int8 pipeline_drop pipeline_drop_int8" \
    STRATA_CSV=compression_cluster.csv benchmarks/cluster.sh
fi
