#!/usr/bin/env bash
# Test accuracy at the best validation epoch, one process, seeds 0-4: a 2-layer GCN on
# Cora and CiteSeer (public split, hidden 16, dropout 0.5, lr 0.01, weight decay 5e-4, 200
# epochs, row-normalized features, as Kipf & Welling), on Coauthor CS (binarized features,
# hidden 64, split random_20_30_seed0), and GraphSAGE (mean aggregator) on Cora.
# Usage: benchmarks/accuracy.sh [--quick]   (--quick: Cora GCN only, seeds 0-1)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (default
# ../shared/datasets), STRATA_RESULTS (default benchmarks/results). Writes accuracy.csv;
# skips (exit 0) without the datasets.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
seeds=(0 1 2 3 4)
settings=(
  "cora gcn --layers 2 --hidden 16"
  "citeseer gcn --layers 2 --hidden 16"
  "coauthor_cs gcn --layers 2 --hidden 64 --binarize --split random_20_30_seed0"
  "cora sage --layers 2 --hidden 16"
)
if [[ ${1:-} == --quick ]]; then
  seeds=(0 1)
  settings=("${settings[0]}")
fi
if [[ ! -d $datasets/cora ]]; then
  echo "accuracy: skipped ($datasets/cora not found)"
  exit 0
fi
out=$results/accuracy.csv
{
  echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); one process, 1 thread; dropout 0.5, lr 0.01, weight decay 5e-4, 200 epochs; test accuracy at the best validation epoch"
  echo "dataset,model,options,seed,test_acc,best_val_acc,best_epoch"
} >"$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for setting in "${settings[@]}"; do
  read -r name model options <<<"$setting"
  for seed in "${seeds[@]}"; do
    # shellcheck disable=SC2086 # options are several words
    OMP_NUM_THREADS=1 "$strata" train --mode local --dataset "$datasets/$name" --model "$model" \
      $options --dropout 0.5 --lr 0.01 --weight-decay 5e-4 --epochs 200 --seed "$seed" \
      --metrics "$tmp" >/dev/null
    python3 - "$tmp" "$name" "$model" "$options" "$seed" >>"$out" <<'EOF_PY'
import json, sys
final = [json.loads(l) for l in open(sys.argv[1]) if '"event":"final"' in l][-1]
print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{sys.argv[5]},{final['test_acc']:.4f},"
      f"{final['best_val_acc']:.4f},{final['best_epoch']}")
EOF_PY
    tail -n 1 "$out" >&2
  done
done
