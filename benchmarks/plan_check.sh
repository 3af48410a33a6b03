#!/usr/bin/env bash
# `strata plan` against the emulated cluster (scripts/cluster.sh): for each number of hosts,
# link rate, model and depth, the planner ranks every layout; this runs its first choice,
# its next two allowed layouts and the usual ones (graph mode with and without int8 rows,
# the pipeline with 4 chunks, exact and drop, hybrid 2 x hosts/2 with 4 chunks), and
# writes each layout's predicted and measured epoch time. One rank per host, every host on
# this machine's cores (plan --shared-cores), kernel rates measured once into the raw
# folder, the network measured on each cluster first (plan --probe-network). Usage: benchmarks/plan_check.sh [--quick]   (--quick: synthetic graph, 2 hosts,
# 1 Gbit/s, GCN 2). Environment: STRATA_HOSTS ("2 4"), STRATA_GBITS ("1 10"),
# STRATA_MODELS ("gcn:2 gcn:4 gcnii:16 gcnii:32"), STRATA_EPOCHS (8), STRATA_BUILD,
# STRATA_DATASETS, STRATA_RESULTS. Needs root; skips (exit 0) without coauthor_physics
# or a cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
hosts=(${STRATA_HOSTS:-2 4}) gbits=(${STRATA_GBITS:-1 10})
models=(${STRATA_MODELS:-gcn:2 gcn:4 gcnii:16 gcnii:32}) epochs=${STRATA_EPOCHS:-8}
raw=$results/raw_plan
if [[ ${1:-} == --quick ]]; then
  hosts=(2) gbits=(1) models=(gcn:2) epochs=4
  results=benchmarks/results/quick raw=$results/raw_plan
  dataset_args=(--dataset synthetic --nodes 20000)
else
  physics_raw "$raw" || { echo "plan_check: skipped (no coauthor_physics)"; exit 0; }
fi
mkdir -p "$raw"
export OMP_NUM_THREADS=1
csv=$results/plan_check.csv
echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); one rank per host, hidden 64, $epochs epochs (median after 2)" >"$csv"
echo "hosts,gbit,model,layers,mode,stages,parts,chunks,stale_grad,compress,predicted_s,measured_s,planner_rank,chosen,risk" >>"$csv"
for h in "${hosts[@]}"; do
  for gbit in "${gbits[@]}"; do
    network=$raw/network-h$h-g$gbit.txt
    scripts/cluster.sh --hosts "$h" --gbit "$gbit" -- mpirun -np "$h" "$PWD/$strata" plan \
      --probe-network "$PWD/$network" 2>&1 | grep -v setpgid >&2
    for m in "${models[@]}"; do
      plan=$raw/plan-h$h-g$gbit-${m/:/}.json
      "$strata" plan "${dataset_args[@]}" --ranks "$h" --model "${m%:*}" --layers "${m#*:}" \
        --hidden 64 --network "$network" --shared-cores "$(nproc --all)" --threads 1 \
        --calibration "$raw/rates.txt" --json >"$plan"
      # rank<TAB>args<TAB>csv fields, for the layouts to run
      while IFS=$'\t' read -r -u 3 rank args fields; do  # fd 3: mpirun reads stdin
        tag=h$h-g$gbit-${m/:/}-r$rank out=$raw/$tag.jsonl
        if ! scripts/cluster.sh --hosts "$h" --gbit "$gbit" -- mpirun -np "$h" "$PWD/$strata" \
          train $args --epochs "$epochs" "${dataset_args[@]}" --metrics "$PWD/$out" \
          >"$raw/$tag.log" 2>&1; then
          echo "plan_check: $tag failed or the cluster could not be made ($raw/$tag.log):"
          tail -n 3 "$raw/$tag.log"
          exit 0
        fi
        measured=$(python3 benchmarks/run_summary.py "$out" | cut -d, -f1)
        echo "$h,$gbit,${m%:*},${m#*:},${fields/MEASURED/$measured}" >>"$csv"
        echo "[$(date -u +%T)] $(tail -n 1 "$csv")" >&2
      done 3< <(python3 benchmarks/plan_pick.py "$plan" "$h")
    done
  done
done
column -s, -t < <(grep -v '^#' "$csv")
