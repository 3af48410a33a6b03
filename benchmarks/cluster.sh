#!/usr/bin/env bash
# Every mode on the emulated cluster (scripts/cluster.sh): epoch time, time waiting in
# communication, bytes, time to a validation accuracy and test accuracy, per number of
# hosts, link rate, model and depth. One rank per host; graph mode with the halo
# overlapped and not, pipeline (one stage per host, 4 chunks, the default exact backward;
# pipeline_drop: --stale-grad drop, whose backward overlaps), and hybrid (2 stages x
# hosts/2 parts) from 4 hosts on.
# A mode may end in _bf16 or _int8: the same with --compress (graph_int8, pipeline_bf16...).
# planner_choice: yes where the mode is the one `strata comm-volume` says moves least.
# Usage: benchmarks/cluster.sh [--quick]   (--quick: synthetic graph, 2 hosts, 1 Gbit/s)
# Environment: STRATA_HOSTS ("2 4"), STRATA_GBITS ("1 10 25"), STRATA_MODELS ("gcnii:16
# gcnii:32 gcn:4"), STRATA_MODES ("graph graph_no_overlap pipeline hybrid"), STRATA_EPOCHS
# (20), STRATA_TARGET (validation accuracy, 0.95), STRATA_BUILD, STRATA_DATASETS,
# STRATA_RESULTS, STRATA_CSV (cluster.csv), STRATA_SYNTHETIC (a vertex count: the synthetic
# SBM graph of that size instead of coauthor_physics). Needs root. Skips (exit 0) without
# coauthor_physics or a cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
hosts=(${STRATA_HOSTS:-2 4}) gbits=(${STRATA_GBITS:-1 10 25})
models=(${STRATA_MODELS:-gcnii:16 gcnii:32 gcn:4})
modes=(${STRATA_MODES:-graph graph_no_overlap pipeline hybrid})
epochs=${STRATA_EPOCHS:-20} target=${STRATA_TARGET:-0.95}
raw=$results/raw_cluster
if [[ ${1:-} == --quick ]]; then
  hosts=(2) gbits=(1) models=(gcnii:8) epochs=4 target=0.5
  results=benchmarks/results/quick raw=$results/raw_cluster
  dataset_args=(--dataset synthetic --nodes 20000)
elif [[ -n ${STRATA_SYNTHETIC:-} ]]; then
  dataset_args=(--dataset synthetic --nodes "$STRATA_SYNTHETIC")
else
  physics_raw "$raw" || { echo "cluster: skipped (no coauthor_physics)"; exit 0; }
fi
mkdir -p "$raw"
export OMP_NUM_THREADS=1
declare -A mode_args=([graph]="--mode graph" [graph_no_overlap]="--mode graph --no-overlap"
  [pipeline]="--mode pipeline --chunks 4" [hybrid]="--mode hybrid --parts HALF --chunks 4"
  [pipeline_drop]="--mode pipeline --chunks 4 --stale-grad drop")
# The mode `strata comm-volume` says moves the fewest bytes: the planner's choice.
declare -A least=()
least_bytes_mode() {  # hosts model layers compress
  local key="$*"
  [[ -n ${least[$key]:-} ]] || least[$key]=$("$strata" comm-volume "${dataset_args[@]}" --parts "$1" \
    --model "$2" --layers "$3" --hidden 64 --compress "$4" --json | python3 -c \
    'import json, sys; print(min(json.load(sys.stdin)["rows"], key=lambda r: r["training"])["mode"])')
  echo "${least[$key]}"
}
csv=$results/${STRATA_CSV:-cluster.csv}
echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); one rank per host, hidden 64, $epochs epochs, target validation accuracy $target" >"$csv"
echo "hosts,gbit,model,layers,mode,epoch_s,comm_s,bytes_per_epoch,epochs_to_target,seconds_to_target,test_acc,overlap_s,planner_choice" >>"$csv"
for h in "${hosts[@]}"; do
  for gbit in "${gbits[@]}"; do
    for m in "${models[@]}"; do
      for mode in "${modes[@]}"; do
        [[ $mode == hybrid* && $h -lt 4 ]] && continue
        tag=h$h-g$gbit-${m/:/}-$mode${STRATA_SYNTHETIC:+-n$STRATA_SYNTHETIC} out=$raw/$tag.jsonl
        base=${mode%_int8} && base=${base%_bf16} && compress=none
        [[ $base != "$mode" ]] && compress=${mode##*_}
        args="${mode_args[$base]/HALF/$((h / 2))} --compress $compress"
        if ! scripts/cluster.sh --hosts "$h" --gbit "$gbit" -- mpirun -np "$h" "$PWD/$strata" train \
          $args --model "${m%:*}" --layers "${m#*:}" --hidden 64 --epochs "$epochs" \
          "${dataset_args[@]}" --metrics "$PWD/$out" >"$raw/$tag.log" 2>&1; then
          echo "cluster: $tag failed or the cluster could not be made ($raw/$tag.log):"
          tail -n 3 "$raw/$tag.log"
          exit 0
        fi
        chosen=no
        [[ ${base%%_*} == "$(least_bytes_mode "$h" "${m%:*}" "${m#*:}" "$compress")" ]] && chosen=yes
        echo "$h,$gbit,${m%:*},${m#*:},$mode,$(python3 benchmarks/run_summary.py "$out" "$target"),$chosen" >>"$csv"
        echo "[$(date -u +%T)] $(tail -n 1 "$csv")" >&2
      done
    done
  done
done
column -s, -t < <(grep -v '^#' "$csv")
