#!/usr/bin/env bash
# Kill one rank of a 4-rank run with SIGKILL in the middle of an epoch, resume from the
# checkpoints, and the final weights must be bitwise those of an uninterrupted run.
# Usage: kill_resume.sh STRATA MPIRUN MODE-ARGS...
set -uo pipefail
strata=$1
mpirun=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run ARGS...: the 4-rank job, 40 epochs on the synthetic graph
  timeout 120 "$mpirun" -np 4 "$strata" train --dataset synthetic --nodes 3000 --epochs 40 "$@"
}
fail() {
  echo "FAIL $*"
  exit 1
}

run "$@" --save-weights "$tmp/uninterrupted.bin" >"$tmp/reference.txt" 2>&1 ||
  fail "the uninterrupted run: $(tail -n 5 "$tmp/reference.txt")"
checkpoints=(--checkpoint-dir "$tmp/ck" --checkpoint-every 10 --metrics "$tmp/metrics.jsonl")
STRATA_FAULT=kill:2:23 run "$@" "${checkpoints[@]}" >"$tmp/killed.txt" 2>&1 &&
  fail "the run with rank 2 killed exited 0"
grep -q "process rank 2 .*exited on signal 9" "$tmp/killed.txt" ||
  fail "no message names the killed rank: $(tail -n 5 "$tmp/killed.txt")"
[[ -f $tmp/ck/epoch-00000020/MANIFEST && ! -e $tmp/ck/epoch-00000030 ]] ||
  fail "expected the epoch-20 checkpoint and none later: $(ls "$tmp/ck")"
echo "ok   killed at epoch 23: $(grep -m1 'exited on signal' "$tmp/killed.txt")"

run "$@" "${checkpoints[@]}" --resume --save-weights "$tmp/resumed.bin" >"$tmp/resumed.txt" 2>&1 ||
  fail "the resumed run: $(tail -n 5 "$tmp/resumed.txt")"
grep -q "resuming from checkpoint $tmp/ck/epoch-00000020 (20 epochs done)" "$tmp/resumed.txt" ||
  fail "the run did not resume from epoch 20: $(grep checkpoint "$tmp/resumed.txt")"
cmp "$tmp/uninterrupted.bin" "$tmp/resumed.bin" || fail "resumed weights differ from uninterrupted"
# The metrics file keeps the killed run's lines and gains the resumed run's.
[[ $(grep -c '"epoch":39' "$tmp/metrics.jsonl") -eq 1 && $(grep -c '"epoch":21' "$tmp/metrics.jsonl") -eq 2 ]] ||
  fail "metrics file: $(grep -c . "$tmp/metrics.jsonl") lines"
final() { grep '^final' "$1"; }
[[ "$(final "$tmp/reference.txt")" == "$(final "$tmp/resumed.txt")" ]] ||
  fail "final lines differ: $(final "$tmp/reference.txt") / $(final "$tmp/resumed.txt")"
echo "ok   resumed from epoch 20: weights bitwise equal ($(stat -c %s "$tmp/resumed.bin") bytes), $(final "$tmp/resumed.txt")"
