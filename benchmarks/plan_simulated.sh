#!/usr/bin/env bash
# `strata plan --simulate` for GPU clusters this machine cannot run: 64 and 256 GPUs, 8 per
# host on a 900 GB/s host link (NVLink class), hosts on 400 or 100 Gbit/s links (5 us per
# message), graphs of 10M and 100M vertices (average degree 20, 128 dense features, 16
# classes, 20% of each vertex's edges leaving its part), GCN 3 (hidden 256) and GCNII 16
# (hidden 128); kernel rates assumed for an H100-class GPU, 80 GB each. A model, not a
# measurement. Usage: benchmarks/plan_simulated.sh. Environment: STRATA_BUILD,
# STRATA_RESULTS.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
csv=$results/plan_simulated.csv
echo "# machine: a model (strata plan --simulate, H100-class rates assumed), printed on $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); 8 GPUs per host, 900 GB/s host link, 5 us, cut fraction 0.2, 80 GB per GPU" >"$csv"
echo "gpus,nodes,model,layers,hidden,network,best,best_s,graph_s,staged,staged_s,best_gb" >>"$csv"
for gpus in 64 256; do
  for nodes in 10000000 100000000; do
    for m in gcn:3:256 gcnii:16:128; do
      IFS=: read -r model layers hidden <<<"$m"
      for net in 400Gbit 100Gbit; do
        "$strata" plan --simulate --device cuda --nodes "$nodes" --avg-degree 20 --features 128 \
          --classes 16 --cut-fraction 0.2 --ranks "$gpus" --gpus-per-host 8 --host-link 900GB/s \
          --link "$net" --latency 5us --model "$model" --layers "$layers" --hidden "$hidden" \
          --json | python3 benchmarks/plan_simulated.py | sed "s/^/$gpus,$nodes,$model,$layers,$hidden,$net,/" >>"$csv"
        tail -n 1 "$csv"
      done
    done
  done
done
