#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, CPU only) and runs them one after
# another, FUZZ_SECONDS each, then prints for each target the seconds run, executions,
# corpus size and whether it found anything. Exits 1 if any target found something.
#
#   scripts/fuzz.sh [TARGET...]   (default: every target; `make fuzz` calls this)
#
# Environment: FUZZ_SECONDS (600), FUZZ_BUILD (build-fuzz), JOBS (build jobs, nproc),
# FUZZ_NICE (nice level of the fuzzers, 10). The corpus grows across runs in
# FUZZ_BUILD/fuzz/corpus/TARGET; crashing inputs land in FUZZ_BUILD/fuzz/artifacts/TARGET
# and the full output in FUZZ_BUILD/fuzz/logs/TARGET.log. Replay one input with
# `STRATA_FUZZ_PRINT=1 FUZZ_BUILD/bin/fuzz_TARGET FILE`. FUZZ_CSV (default
# FUZZ_BUILD/fuzz/fuzz.csv) gets one row per target, in the layout of
# benchmarks/results/fuzz.csv (copy it there for the README).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${FUZZ_BUILD:-build-fuzz}
seconds=${FUZZ_SECONDS:-600}
jobs=${JOBS:-$(nproc)}
all=(ogb edge_list cache shard partition_file weights_file sections checkpoint)
if [[ $# -gt 0 ]]; then targets=("$@"); else targets=("${all[@]}"); fi

if [[ ! -f $build/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DSTRATA_WITH_CUDA=OFF -DSTRATA_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target strata_fuzzers -j "$jobs"

work=$build/fuzz
rm -rf "$work/seeds"
"$build/bin/fuzz_seeds" "$work/seeds"

# The targets write each input to $TMPDIR/strata-fuzz-PID: memory when possible.
scratch_root=/dev/shm
[[ -d $scratch_root && -w $scratch_root ]] || scratch_root=$work
scratch=$(mktemp -d "$scratch_root/strata-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Prints "seconds executions corpus" from a libFuzzer log.
fuzz_stats() {
  local log=$1 execs corpus
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [[ -n $execs ]] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  corpus=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  echo "${execs:-0} ${corpus:-0}"
}

summary=()
found_any=0
csv=${FUZZ_CSV:-$work/fuzz.csv}
mkdir -p "$(dirname "$csv")"
{
  echo "# machine: $(nproc --all) cores; commit $(git rev-parse --short HEAD); $(date -u +%F); ${seconds} s per target (FUZZ_SECONDS), nice ${FUZZ_NICE:-10}"
  echo "target,seconds,executions,corpus,found"
} >"$csv"
for t in "${targets[@]}"; do
  [[ -x $build/bin/fuzz_$t ]] || { echo "fuzz: no target '$t' (one of ${all[*]})" >&2; exit 2; }
  corpus=$work/corpus/$t artifacts=$work/artifacts/$t log=$work/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$work/logs"
  inputs=("$corpus" "$work/seeds/$t")
  [[ -d tests/fuzz/regressions/$t ]] && inputs+=("tests/fuzz/regressions/$t")
  options=(-max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=30
           -print_final_stats=1 -artifact_prefix="$artifacts/")
  [[ -f tests/fuzz/$t.dict ]] && options+=(-dict="tests/fuzz/$t.dict")
  echo "fuzz: $t for ${seconds}s (log: $log)"
  start=$(date +%s)
  rc=0
  TMPDIR=$scratch OMP_NUM_THREADS=1 nice -n "${FUZZ_NICE:-10}" "$build/bin/fuzz_$t" \
    "${options[@]}" "${inputs[@]}" >"$log" 2>&1 || rc=$?
  elapsed=$(($(date +%s) - start))
  read -r execs corpus_size <<<"$(fuzz_stats "$log")"
  result="nothing found"
  if [[ $rc -ne 0 ]]; then
    found_any=1
    result="FOUND (exit $rc): $(grep -m1 -E '^==[0-9]+==ERROR|SUMMARY|^fuzz: internal|deadly signal|uncaught|out-of-memory|timeout' "$log" || echo see log)"
    result+="; input: $(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | cut -d' ' -f5)"
  fi
  line=$(printf '%-15s %6ss %12s execs %6s corpus  %s' "$t" "$elapsed" "$execs" "$corpus_size" "$result")
  echo "$t,$elapsed,$execs,$corpus_size,$([[ $rc -eq 0 ]] && echo no || echo yes)" >>"$csv"
  echo "$line"
  summary+=("$line")
done

echo
echo "fuzz summary (${seconds}s per target; logs in $work/logs):"
printf '%s\n' "${summary[@]}"
exit "$found_any"
