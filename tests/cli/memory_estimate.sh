#!/usr/bin/env bash
# The per-rank memory estimate of every mode against each rank's measured peak resident
# memory: on a graph where activations dominate (30,000 vertices, hidden 256, 4 layers;
# pipeline (its whole backward, bf16-stored aggregations, and a backward chunk by chunk),
# hybrid (whole backward, and chunk by chunk) and graph mode (also bf16-stored and
# recomputed) on 4 ranks), every rank's measured/estimate must lie within BOUNDS. The
# README quotes 1 to 12% on larger graphs; here a 30% error in the activations moves the
# ratio of the fullest rank by about 15%. Local mode runs with and without --recompute, with
# --storage bf16 and with --adjacency degrees, whose estimates must also be the smaller, and
# on 2 threads.
# Usage: memory_estimate.sh STRATA MPIRUN
set -euo pipefail
strata=$1
mpirun=$2
low=0.85 high=1.15
out=$(mktemp)
trap 'rm -f "$out"' EXIT
graph=(--dataset synthetic --nodes 30000 --avg-degree 4 --hidden 256 --layers 4 --chunks 4 --epochs 2)
check() {  # layout, expected memory lines
  python3 - "$out" "$1" "$2" "$low" "$high" <<'EOF_PY'
import re, sys
text, layout, count = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
low, high = float(sys.argv[4]), float(sys.argv[5])
ratios = [float(r) for r in re.findall(r"^memory, rank \d+: .*\(measured/estimate ([0-9.]+)\)$", text, re.M)]
assert len(ratios) == count, f"{layout}: {len(ratios)} memory lines, expected {count}:\n{text}"
bad = [r for r in ratios if not low <= r <= high]
assert not bad, f"{layout}: measured/estimate {ratios}, outside [{low}, {high}]"
print(f"ok   {layout}: measured/estimate {ratios}")
EOF_PY
}
for layout in "--mode pipeline" "--mode pipeline --storage bf16" "--mode pipeline --stale-grad drop" \
  "--mode hybrid --parts 2" "--mode hybrid --parts 2 --stale-grad drop" "--mode graph" "--mode graph --storage bf16" "--mode graph --recompute" \
  "--mode hybrid --parts 2 --adjacency degrees"; do
  # shellcheck disable=SC2086 # the layout is several words
  timeout 240 "$mpirun" -np 4 "$strata" train "${graph[@]}" $layout >"$out" 2>&1 || {
    tail -n 20 "$out"
    echo "FAIL $layout: exit status $?"
    exit 1
  }
  check "$layout" 4
done
estimates=()
for extra in "" "--recompute" "--storage bf16" "--adjacency degrees"; do
  # shellcheck disable=SC2086 # empty or a flag
  timeout 240 "$strata" train "${graph[@]}" --mode local $extra >"$out" 2>&1 || {
    tail -n 20 "$out"
    echo "FAIL local $extra: exit status $?"
    exit 1
  }
  check "local $extra" 1
  estimates+=("$(sed -n 's/^memory, rank 0: .*estimated \([0-9.]*\) MB.*/\1/p' "$out")")
done
python3 -c "
import sys
k, r, b, d = map(float, sys.argv[1:])
assert r < k and b < k and d < k, (k, r, b, d)
print(f'ok   estimates: --recompute {r} MB, --storage bf16 {b} MB, --adjacency degrees {d} MB < {k} MB')" "${estimates[@]}"
# Two threads: OpenBLAS's own threads once kept packing buffers that grow with the rows
# (1.21 here), which a tall product now avoids (kernels/cpu/gemm.cpp).
OMP_NUM_THREADS=2 timeout 240 "$strata" train "${graph[@]}" --mode local >"$out" 2>&1 || {
  tail -n 20 "$out"
  echo "FAIL local on 2 threads: exit status $?"
  exit 1
}
check "local, 2 threads" 1
