#!/usr/bin/env bash
# GraphSAGE, GIN and GAT in Strata beside PyTorch Geometric's SAGEConv, GINConv and GATConv
# on the same files and hyper-parameters: Cora and CiteSeer, public split, row-normalized
# features, 2 layers, weight decay 5e-4, 200 epochs, seeds 0-4, one thread each; test
# accuracy at the best validation epoch. GraphSAGE and GIN: hidden 64, dropout 0.5, Adam lr
# 0.01; GIN with eps 0 (PyG's default) and with eps learnt (--eps-learnable, PyG's
# train_eps=True). GAT as the paper's Cora model: 8 heads of 8, one output head, dropout
# and attention dropout 0.6, lr 0.005.
# PyG lives in benchmarks/pyg/venv (benchmarks/pyg/setup.sh); never a Strata dependency.
# Usage: benchmarks/model_accuracy.sh [--quick]   (--quick: Cora, seeds 0-1)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (default
# ../shared/datasets), STRATA_RESULTS (default benchmarks/results). Writes
# model_accuracy.csv; skips (exit 0) without the datasets or PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
seeds=(0 1 2 3 4)
datasets_used=(cora citeseer)
if [[ ${1:-} == --quick ]]; then
  seeds=(0 1)
  datasets_used=(cora)
fi
settings=("sage" "gin" "gin --eps-learnable" "gat")
if [[ ! -d $datasets/cora ]]; then
  echo "model_accuracy: skipped ($datasets/cora not found)"
  exit 0
fi
[[ -x $strata ]] || { echo "model_accuracy: $strata not found (build target strata_cli)" >&2; exit 1; }
status=0
bash benchmarks/pyg/setup.sh || status=$?
if ((status == 3)); then
  echo "model_accuracy: skipped (PyPI unreachable, no PyG environment)"
  exit 0
elif ((status != 0)); then
  exit "$status"
fi
py=benchmarks/pyg/venv/bin/python
common=(--row-normalize 1 --layers 2 --weight-decay 5e-4 --epochs 200)
conv=(--hidden 64 --dropout 0.5 --lr 0.01)
gat=(--hidden 8 --heads 8 --dropout 0.6 --attention-dropout 0.6 --lr 0.005)
out=$results/model_accuracy.csv
{
  echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); one process, 1 thread each; public split, row-normalized features, 2 layers, weight decay 5e-4, 200 epochs, sage and gin: hidden 64, dropout 0.5, lr 0.01, gat: 8 heads of 8, dropout and attention dropout 0.6, lr 0.005; test accuracy at the best validation epoch; $("$py" -W ignore -c 'import torch, torch_geometric as g; print(f"torch {torch.__version__}, torch_geometric {g.__version__}")')"
  echo "dataset,model,options,framework,seed,test_acc,best_val_acc,best_epoch"
} >"$out"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for name in "${datasets_used[@]}"; do
  for setting in "${settings[@]}"; do
    read -r model options <<<"$setting"
    if [[ $model == gat ]]; then hyper=("${gat[@]}"); else hyper=("${conv[@]}"); fi
    for seed in "${seeds[@]}"; do
      # shellcheck disable=SC2086 # options: zero or one word
      OMP_NUM_THREADS=1 "$strata" train --mode local --dataset "$datasets/$name" --model "$model" \
        $options "${common[@]}" "${hyper[@]}" --seed "$seed" --metrics "$tmp" >/dev/null
      python3 - "$tmp" "$name,$model,${options:-none},strata,$seed" >>"$out" <<'EOF_PY'
import json, sys
final = [json.loads(l) for l in open(sys.argv[1]) if '"event":"final"' in l][-1]
print(f"{sys.argv[2]},{final['test_acc']:.4f},{final['best_val_acc']:.4f},{final['best_epoch']}")
EOF_PY
      # shellcheck disable=SC2086
      "$py" benchmarks/pyg/train.py --dataset "$datasets/$name" --model "$model" $options \
        "${common[@]}" "${hyper[@]}" --seed "$seed" --threads 1 --features dense >"$tmp"
      python3 - "$tmp" "$name,$model,${options:-none},pyg,$seed" >>"$out" <<'EOF_PY'
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
print(f"{sys.argv[2]},{r['test_acc']:.4f},{r['best_val_acc']:.4f},{r['best_epoch']}")
EOF_PY
      tail -n 2 "$out" >&2
    done
  done
done
