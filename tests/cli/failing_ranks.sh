#!/usr/bin/env bash
# A failing rank ends the whole job: an exception, an allocation failure or SIGKILL on one
# rank of a 4-rank run (STRATA_FAULT, mid-epoch) must end every rank within 30 seconds with
# a non-zero status and a message that names the rank.
set -uo pipefail
strata=$1
mpirun=$2
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

expect_failure() {  # expect_failure FAULT PATTERN ARGS...
  local fault=$1 pattern=$2
  shift 2
  local start status elapsed
  start=$(date +%s.%N)
  STRATA_FAULT=$fault timeout 60 "$mpirun" -np 4 "$strata" train --dataset synthetic --nodes 3000 \
    --epochs 50 "$@" >"$out" 2>&1
  status=$?
  elapsed=$(echo "$(date +%s.%N) - $start" | bc)
  if [[ $status -eq 0 || $status -eq 124 ]] || ! grep -q -- "$pattern" "$out" ||
    (($(echo "$elapsed >= 30" | bc))); then
    echo "FAIL $fault $*: status $status after ${elapsed}s; output:"
    tail -n 15 "$out"
    failures=$((failures + 1))
  else
    echo "ok   $fault $*: status $status after ${elapsed}s: $(grep -m1 -- "$pattern" "$out")"
  fi
}

for mode in "--mode graph" "--mode pipeline --layers 4" "--mode hybrid --parts 2 --layers 4"; do
  expect_failure throw:2:5 "strata: rank 2: injected fault (STRATA_FAULT) in epoch 5" $mode
  expect_failure oom:1:5 "strata: rank 1: out of memory" $mode
  expect_failure kill:3:5 "process rank 3 .*exited on signal 9" $mode
done
# Rank 0 too: it writes the metrics and the checkpoints' manifests.
expect_failure kill:0:5 "process rank 0 .*exited on signal 9" --mode graph
exit $((failures > 0))
