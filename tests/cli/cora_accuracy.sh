#!/usr/bin/env bash
# Cora, public split, 2-layer GCN (hidden 16, dropout 0.5, lr 0.01, weight decay 5e-4,
# 200 epochs): mean test accuracy over seeds 0-4 must reach 80.5% (Kipf & Welling: 81.5%).
set -euo pipefail
strata=$1
cora=$2/cora
if [[ ! -d $cora ]]; then
  echo "SKIP: $cora not found (the shared datasets are absent)"
  exit 77
fi
sum=0
for seed in 0 1 2 3 4; do
  acc=$("$strata" train --dataset "$cora" --layers 2 --hidden 16 --dropout 0.5 --lr 0.01 \
        --weight-decay 5e-4 --epochs 200 --seed "$seed" | awk '/^final:/ {print $4}')
  echo "seed $seed: test accuracy $acc"
  sum=$(awk -v s="$sum" -v a="$acc" 'BEGIN {print s + a}')
done
mean=$(awk -v s="$sum" 'BEGIN {printf "%.4f", s / 5}')
echo "mean test accuracy $mean (required >= 0.805)"
awk -v m="$mean" 'BEGIN {exit !(m >= 0.805)}'
