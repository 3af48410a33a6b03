#!/usr/bin/env bash
# Strata against PyTorch Geometric on coauthor_physics: a 2-layer GCN, a 16-layer GCNII, a
# 2-layer GraphSAGE and a 2-layer GIN, hidden 64, binarized features without row
# normalization, the same split, hyper-parameters and thread count (OMP_NUM_THREADS for
# Strata, torch.set_num_threads for PyG). Each run is one process under /usr/bin/time -v
# (peak resident memory), Strata and PyG alternately.
# PyG (CPU torch + torch_geometric) lives in benchmarks/pyg/venv, made by
# benchmarks/pyg/setup.sh; it is never a dependency of Strata.
# Usage: benchmarks/pyg_compare.sh [--quick]   (--quick: 10 epochs per model)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (default
# ../shared/datasets), STRATA_RESULTS (CSV dir, default benchmarks/results), STRATA_THREADS
# (default 2), STRATA_GCN_EPOCHS / STRATA_GCNII_EPOCHS (default 100 / 50, quick 10 / 10),
# STRATA_PYG_FEATURES (sparse | dense, default sparse; SAGEConv and GINConv aggregate the
# raw features, which PyG's message passing takes dense only), STRATA_OMP_WAIT_POLICY (both
# frameworks' OpenMP; default passive: with other work on the cores, spinning threads made
# both 4-5x slower on 2 cores), STRATA_COMMIT (for the header), STRATA_PYG_MODELS (default
# "gcn gcnii sage gin gat"), STRATA_CONV_EPOCHS (GraphSAGE's, GIN's and GAT's, default 20,
# quick 3: PyG takes about 9 s an epoch for the first two on 2 cores, aggregating the 8,415
# raw features).
# Skips (exit 0) with a message when the dataset is missing or PyPI is unreachable.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
quick=0
[[ ${1:-} == --quick ]] && quick=1
strata=${STRATA_BUILD:-build-bench}/bin/strata
data=${STRATA_DATASETS:-../shared/datasets}/coauthor_physics
results=${STRATA_RESULTS:-benchmarks/results}
threads=${STRATA_THREADS:-2}
features=${STRATA_PYG_FEATURES:-sparse}
export OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=${STRATA_OMP_WAIT_POLICY:-passive}
if ((quick)); then
  epochs_gcn=${STRATA_GCN_EPOCHS:-10} epochs_gcnii=${STRATA_GCNII_EPOCHS:-10}
  epochs_conv=${STRATA_CONV_EPOCHS:-3}
else
  epochs_gcn=${STRATA_GCN_EPOCHS:-100} epochs_gcnii=${STRATA_GCNII_EPOCHS:-50}
  epochs_conv=${STRATA_CONV_EPOCHS:-20}
fi
# PyG's faster adjacency layout for each model (measured on 2 cores, see train.py --help).
# GAT: 8 heads of 8 (64 columns, as the others' hidden 64), attention dropout 0.5; PyG's
# GATConv reads edge_index (its message passing keeps a value per edge and head).
declare -A layers=([gcn]=2 [gcnii]=16 [sage]=2 [gin]=2 [gat]=2) \
  epochs=([gcn]=$epochs_gcn [gcnii]=$epochs_gcnii [sage]=$epochs_conv [gin]=$epochs_conv
    [gat]=$epochs_conv) \
  adjacency=([gcn]=edge_index [gcnii]=csr [sage]=csr [gin]=csr [gat]=edge_index) \
  pyg_features=([gcn]=$features [gcnii]=$features [sage]=dense [gin]=dense [gat]=dense) \
  model_options=([gcn]="--hidden 64" [gcnii]="--hidden 64" [sage]="--hidden 64"
    [gin]="--hidden 64" [gat]="--hidden 8 --heads 8 --attention-dropout 0.5")
common=(--dataset "$data" --binarize --row-normalize 0 --dropout 0.5 --lr 0.01
  --weight-decay 5e-4 --seed 0)
log() { echo "[$(date -u +%T)] $*" >&2; }

if [[ ! -d $data ]]; then
  echo "pyg_compare: skipped ($data not found)"
  exit 0
fi
[[ -x $strata ]] || { echo "pyg_compare: $strata not found (build target strata_cli)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || apt-get install -y time >/dev/null
t0=$(date +%s)
status=0
bash benchmarks/pyg/setup.sh || status=$?
if ((status == 3)); then
  echo "pyg_compare: skipped (PyPI unreachable, no PyG environment)"
  exit 0
elif ((status != 0)); then
  exit "$status"
fi
log "PyG environment ready ($(($(date +%s) - t0)) s)"
py=benchmarks/pyg/venv/bin/python
raw=$results/raw_pyg_compare
mkdir -p "$raw"
rm -f "$raw"/*

peak_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$1"; }
timed() {  # name, command...: stdout to $raw/name.out, /usr/bin/time -v to $raw/name.time
  local name=$1
  shift
  /usr/bin/time -v -o "$raw/$name.time" "$@" >"$raw/$name.out"
}
strata_summary() {  # metrics.jsonl -> "median_epoch_s test_acc"
  python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
times = [r["epoch_s"] for r in rows if r["event"] == "epoch"]
final = [r for r in rows if r["event"] == "final"][-1]
print(statistics.median(times), final["test_acc"])' "$1"
}
pyg_field() { python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readlines()[-1])[sys.argv[2]])' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

timed pyg_import "$py" -W ignore -c 'import torch, torch_geometric as g, torch_geometric.nn
print(f"torch {torch.__version__}, torch_geometric {g.__version__}")'
import_mb=$(peak_mb "$raw/pyg_import.time")
versions=$(cat "$raw/pyg_import.out")
csv=$results/pyg_compare.csv
{
  echo "# coauthor_physics, --binarize --row-normalize 0, hidden 64 (gat: 8 heads of 8), dropout 0.5, Adam lr 0.01, weight decay 5e-4; $threads threads, OMP_WAIT_POLICY $OMP_WAIT_POLICY; PyG features $features"
  echo "# machine: $(machine_line); commit ${STRATA_COMMIT:-$(git rev-parse --short HEAD)}; $(date -u +%F); $versions"
  echo "# epoch time = median over epochs of training forward + backward + Adam step (no evaluation); test accuracy at the best validation epoch; peak = max resident set size of the whole process; pyg_import_mb = peak of a process that only imports torch and torch_geometric"
  echo "model,layers,threads,epochs,pyg_adjacency,pyg_features,strata_epoch_s,pyg_epoch_s,pyg_over_strata_time,strata_peak_mb,pyg_peak_mb,pyg_over_strata_mem,pyg_import_mb,strata_test_acc,pyg_test_acc"
} >"$csv"
for model in ${STRATA_PYG_MODELS:-gcn gcnii sage gin gat}; do
  l=${layers[$model]} e=${epochs[$model]}
  read -ra options <<<"${model_options[$model]}"
  log "$model ($l layers, $e epochs): Strata"
  OPENBLAS_NUM_THREADS=$threads timed "strata_$model" "$strata" train \
    --mode local --model "$model" --layers "$l" --epochs "$e" "${common[@]}" "${options[@]}" \
    --metrics "$raw/strata_$model.jsonl"
  log "$model: PyG"
  timed "pyg_$model" "$py" benchmarks/pyg/train.py --model "$model" \
    --layers "$l" --epochs "$e" "${common[@]}" "${options[@]}" --threads "$threads" \
    --features "${pyg_features[$model]}" \
    --adjacency "${adjacency[$model]}" --verbose
  read -r s_time s_acc < <(strata_summary "$raw/strata_$model.jsonl")
  p_time=$(pyg_field "$raw/pyg_$model.out" median_epoch_s)
  p_acc=$(pyg_field "$raw/pyg_$model.out" test_acc)
  s_mem=$(peak_mb "$raw/strata_$model.time") p_mem=$(peak_mb "$raw/pyg_$model.time")
  printf '%s,%d,%d,%d,%s,%s,%.4f,%.4f,%s,%s,%s,%s,%s,%.4f,%.4f\n' "$model" "$l" "$threads" "$e" \
    "${adjacency[$model]}" "${pyg_features[$model]}" "$s_time" "$p_time" "$(ratio "$p_time" "$s_time")" "$s_mem" "$p_mem" \
    "$(ratio "$p_mem" "$s_mem")" "$import_mb" "$s_acc" "$p_acc" >>"$csv"
done
log "pyg_compare: $(($(date +%s) - t0)) s"
cat "$csv"
