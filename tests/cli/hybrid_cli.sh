#!/usr/bin/env bash
# Hybrid mode through the CLI: `comm-volume --memory-per-rank` lists every stages x parts
# layout of the ranks and picks one, and a 4-rank 2 x 2 job trains with a stage plan and
# a memory line per rank, and counts the bytes comm-volume predicts, category by category.
set -euo pipefail
strata=$1
mpirun=$2
out=$(mktemp)
metrics=$(mktemp)
trap 'rm -f "$out" "$metrics"' EXIT
fail() {
  echo "FAIL $*"
  tail -n 20 "$out"
  exit 1
}
graph=(--dataset synthetic --nodes 2000 --avg-degree 4)

"$strata" comm-volume "${graph[@]}" --parts 4 --layers 4 --hidden 64 --memory-per-rank 1GiB \
  >"$out" 2>&1 || fail "comm-volume exited $?"
for layout in "1x4  graph" "2x2  hybrid" "4x1  pipeline"; do
  grep -q " $layout " "$out" || fail "no row for $layout"
done
[[ $(grep -c "<- cheapest that fits" "$out") -eq 1 ]] || fail "not exactly one layout chosen"
echo "ok   comm-volume lists 1x4, 2x2 and 4x1 and chooses one"

"$strata" comm-volume "${graph[@]}" --parts 4 --layers 4 --hidden 64 --memory-per-rank 1KB \
  >"$out" 2>&1 || fail "comm-volume exited $?"
grep -q "no layout of 4 ranks fits" "$out" || fail "a 1 KB limit should fit nothing"
echo "ok   nothing fits 1 KB"

# --storage bf16 keeps the aggregations in half the bytes: every layout's memory per rank
# is smaller (the 1x4 row: graph mode, whose layers 0-2 aggregate first), in bytes (--json).
memory_of() {
  "$strata" comm-volume "${graph[@]}" --parts 4 --layers 4 --hidden 64 --memory-per-rank 1GiB \
    --json "$@" | awk '/"memory_per_rank"/ {m = $2} /"stages": 1,?$/ {sub(",", "", m); print m; exit}'
}
fp32=$(memory_of) bf16=$(memory_of --storage bf16)
awk -v a="$fp32" -v b="$bf16" 'BEGIN {exit !(b > 0 && b < a)}' ||
  fail "--storage bf16: memory per rank $bf16 bytes, not below $fp32 bytes"
echo "ok   comm-volume --storage bf16: $bf16 bytes per rank against $fp32"

timeout 120 "$mpirun" -np 4 "$strata" train "${graph[@]}" --mode hybrid --parts 2 --stages 2 \
  --layers 4 --hidden 64 --chunks 2 --epochs 3 --metrics "$metrics" >"$out" 2>&1 ||
  fail "hybrid training exited $?"
grep -q "^stage 1: layers 3-4, memory estimate" "$out" || fail "no stage plan"
[[ $(grep -c "^memory, rank [0-3]: peak resident" "$out") -eq 4 ]] || fail "not 4 memory lines"
echo "ok   2 x 2 hybrid trains: $(grep -m1 '^epoch' "$out")"
# The metrics file's final line carries each rank's peak and estimate (benchmarks read it).
peaks=$(grep '"event":"final"' "$metrics" | grep -o '"peak_resident_bytes":\[[0-9,]*\]')
[[ $(grep -o '[0-9][0-9]*' <<<"$peaks" | wc -l) -eq 4 ]] || fail "final metrics peaks: '$peaks'"
grep '"event":"final"' "$metrics" | grep -q '"estimated_bytes":\[[1-9]' || fail "no estimates"
echo "ok   the final metrics line has 4 peaks and estimates"

# Every epoch's counted bytes, category by category, equal comm-volume's 2 x 2 prediction
# for the same model (MODEL_ARGS...; the metrics file of the run just made).
check_bytes() {
  "$strata" comm-volume "${graph[@]}" --parts 4 --layers 4 --hidden 64 "$@" --json >"$out" 2>&1 ||
    fail "comm-volume --json exited $?"
  python3 - "$out" "$metrics" "$*" <<'EOF_PY' || fail "counted bytes differ from the prediction"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
want = [r for r in rows if r["mode"] == "hybrid" and r["stages"] == 2 and r["parts"] == 2]
assert len(want) == 1, f"{len(want)} predicted 2 x 2 rows"
want = want[0]
epochs = [json.loads(l) for l in open(sys.argv[2]) if '"event":"epoch"' in l]
assert len(epochs) == 3, f"{len(epochs)} epochs in the metrics"
for e in epochs:
    got = e["comm_bytes"]
    assert set(got) == {"halo_fwd", "halo_bwd", "allreduce", "stage_fwd", "stage_bwd", "eval"}, got
    for k, v in got.items():
        assert v == want[k] and v > 0, f"epoch {e['epoch']}: {k} counted {v}, predicted {want[k]}"
print(f"ok   {sys.argv[3] or 'gcn'}: bytes of every epoch equal the prediction ({want['training']} per training epoch)")
EOF_PY
}
check_bytes

# GIN with a learnt eps: its MLP and eps change the exchanged widths and the all-reduce.
timeout 120 "$mpirun" -np 4 "$strata" train "${graph[@]}" --mode hybrid --parts 2 --stages 2 \
  --layers 4 --hidden 64 --chunks 2 --epochs 3 --model gin --eps-learnable \
  --metrics "$metrics" >"$out" 2>&1 || fail "hybrid gin training exited $?"
check_bytes --model gin --eps-learnable
