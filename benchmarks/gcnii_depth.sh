#!/usr/bin/env bash
# GCNII depth sweep in one process: test accuracy at the best validation epoch for 8, 16,
# 32 and 64 layers (and a 2-layer GCN beside them) on Cora, public split, hidden 64.
# Usage: benchmarks/gcnii_depth.sh [--quick]   (--quick: 20 epochs, 8 and 16 layers)
# Environment: STRATA_BUILD, STRATA_DATASETS, STRATA_RESULTS, STRATA_EPOCHS (default 200),
# STRATA_LAYERS (default "8 16 32 64").
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
strata=${STRATA_BUILD:-build-bench}/bin/strata
datasets=${STRATA_DATASETS:-../shared/datasets}
results=${STRATA_RESULTS:-benchmarks/results}
raw=$results/raw_gcnii_depth
epochs=${STRATA_EPOCHS:-200}
layers=${STRATA_LAYERS:-8 16 32 64}
if [[ ${1:-} == --quick ]]; then
  epochs=${STRATA_EPOCHS:-20} layers=${STRATA_LAYERS:-8 16}
fi
[[ -d $datasets/cora ]] || { echo "skipped: $datasets/cora not found" >&2; exit 0; }
mkdir -p "$raw"
out=$results/gcnii_depth.csv
echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); $epochs epochs" >"$out"
echo "model,layers,test_acc,best_val_acc,best_epoch,median_epoch_s" >>"$out"
one() {  # model layers
  local tag=$1-L$2
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$strata" train --mode local --dataset "$datasets/cora" \
    --row-normalize 0 --model "$1" --layers "$2" --hidden 64 --epochs "$epochs" \
    --metrics "$raw/$tag.jsonl" >"$raw/$tag.log"
  python3 - "$raw/$tag.jsonl" "$1" "$2" >>"$out" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
final = next(l for l in lines if l["event"] == "final")
times = [l["epoch_s"] for l in lines if l["event"] == "epoch"]
print(f"{sys.argv[2]},{sys.argv[3]},{final['test_acc']:.4f},{final['best_val_acc']:.4f},"
      f"{final['best_epoch']},{statistics.median(times):.4f}")
PY
  tail -n 1 "$out" >&2
}
one gcn 2
for l in $layers; do one gcnii "$l"; done
