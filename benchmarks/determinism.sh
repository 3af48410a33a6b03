#!/usr/bin/env bash
# What changes a run's numbers: each configuration is trained twice (bitwise comparison of
# the saved weights), then with another thread count and another rank count, reporting the
# largest difference in per-epoch loss and in final test accuracy against the first run.
# Usage: benchmarks/determinism.sh [--quick]   (--quick: 4,000 vertices, 10 epochs)
# Environment: STRATA_BUILD (default build-bench), STRATA_RESULTS (default
# benchmarks/results). Writes determinism.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
strata=${STRATA_BUILD:-build-bench}/bin/strata
results=${STRATA_RESULTS:-benchmarks/results}
mkdir -p "$results"
out=$results/determinism.csv
nodes=20000 epochs=30
[[ ${1:-} == --quick ]] && nodes=4000 epochs=10
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
common=(--dataset synthetic --nodes "$nodes" --avg-degree 12 --features 64 --classes 8 --hidden 64
  --epochs "$epochs" --seed 3)

run() {  # run NAME THREADS RANKS MODE-ARGS...: weights in $tmp/NAME.bin, metrics in NAME.jsonl
  local name=$1 threads=$2 ranks=$3
  shift 3
  OMP_NUM_THREADS=$threads mpirun --bind-to none -np "$ranks" "$strata" train "${common[@]}" "$@" \
    --save-weights "$tmp/$name.bin" --metrics "$tmp/$name.jsonl" >"$tmp/$name.log" 2>&1
}

# Largest |loss difference| over epochs, and the final test accuracy difference.
differences() {
  python3 - "$tmp/$1.jsonl" "$tmp/$2.jsonl" <<'PY'
import json, sys
def load(path):
    lines = [json.loads(l) for l in open(path)]
    return [l for l in lines if l.get("event") == "epoch"], lines[-1]
(a, fa), (b, fb) = load(sys.argv[1]), load(sys.argv[2])
loss = max(abs(x["loss"] - y["loss"]) for x, y in zip(a, b))
print(f"{loss:.3g},{abs(fa['test_acc'] - fb['test_acc']):.4f}")
PY
}

compare() {  # compare WHAT BASE OTHER
  local same=no
  cmp -s "$tmp/$2.bin" "$tmp/$3.bin" && same=yes
  echo "$1,$2,$3,$same,$(differences "$2" "$3")" | tee -a "$out"
}

echo "# $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%F)" >"$out"
echo "what,base,other,weights_bitwise_equal,max_loss_difference,test_acc_difference" | tee -a "$out"
for mode in graph pipeline; do
  args=(--mode "$mode")
  [[ $mode == pipeline ]] && args+=(--layers 4 --chunks 4)
  run "$mode-p2-t1-a" 1 2 "${args[@]}"
  run "$mode-p2-t1-b" 1 2 "${args[@]}"
  run "$mode-p2-t2" 2 2 "${args[@]}"
  run "$mode-p4-t1" 1 4 "${args[@]}"
  compare "rerun" "$mode-p2-t1-a" "$mode-p2-t1-b"
  compare "threads 1 -> 2" "$mode-p2-t1-a" "$mode-p2-t2"
  compare "ranks 2 -> 4" "$mode-p2-t1-a" "$mode-p4-t1"
done
run local-t1 1 1 --mode local
run local-t2 2 1 --mode local
run graph-p1-t1 1 1 --mode graph
compare "threads 1 -> 2" local-t1 local-t2
compare "local -> graph on 1 rank" local-t1 graph-p1-t1
compare "local -> graph on 2 ranks" local-t1 graph-p2-t1-a
