#!/usr/bin/env bash
# Threads per rank, as `strata train` prints them once at start: each rank's share of the
# cores in its affinity mask (ranks on one host sharing cores split them), unless
# OMP_NUM_THREADS or --threads says otherwise.
# Usage: threads_cli.sh STRATA MPIRUN
set -euo pipefail
strata=$1
mpirun=$2
unset OMP_NUM_THREADS OMP_THREAD_LIMIT
cores=$(nproc) # this process's affinity mask (nproc obeys it once OMP_* is unset)
failures=0
train=(train --dataset synthetic --nodes 300 --epochs 1)

# expect_threads NAME EXPECTED COMMAND...: the one "threads:" line equals EXPECTED
expect_threads() {
  local name=$1 expected=$2
  shift 2
  local out lines
  out=$("$@" 2>&1) || {
    echo "FAIL $name: exit status $?: $(tail -n 2 <<<"$out")"
    failures=$((failures + 1))
    return
  }
  lines=$(grep -c '^threads:' <<<"$out" || true)
  got=$(grep -m1 '^threads:' <<<"$out" || true)
  if [[ $lines -ne 1 || $got != "threads: $expected" ]]; then
    echo "FAIL $name: $lines threads lines, '$got', expected 'threads: $expected'"
    failures=$((failures + 1))
  else
    echo "ok   $name: $got"
  fi
}

share() { # floor(cores / ranks), at least 1
  local s=$(($1 / $2))
  echo $((s < 1 ? 1 : s))
}
plural() { [[ $1 -eq 1 ]] && echo "$1 $2" || echo "$1 $3"; }
mask() { echo "$(plural "$1" core cores) in this rank's affinity mask, shared by $(plural "$2" rank ranks) on this host"; }

expect_threads "one process takes every core of its mask" "$cores per rank ($(mask "$cores" 1))" \
  "$strata" "${train[@]}" --mode local
if command -v taskset >/dev/null; then
  first=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
  expect_threads "a process bound to one core takes one thread" "1 per rank ($(mask 1 1))" \
    taskset -c "$first" "$strata" "${train[@]}" --mode local
fi
for np in 2 4; do
  expect_threads "$np unbound ranks split the cores" \
    "$(share "$cores" "$np") per rank ($(mask "$cores" "$np"))" \
    "$mpirun" -np "$np" --bind-to none "$strata" "${train[@]}" --mode graph
done
if [[ $cores -ge 2 ]]; then
  expect_threads "2 ranks bound to a core each take one thread each" "1 per rank ($(mask 1 1))" \
    "$mpirun" -np 2 --bind-to core "$strata" "${train[@]}" --mode graph
fi
expect_threads "OMP_NUM_THREADS wins over the share" "1 per rank (OMP_NUM_THREADS=1)" \
  env OMP_NUM_THREADS=1 "$mpirun" -np 2 -x OMP_NUM_THREADS "$strata" "${train[@]}" --mode graph
expect_threads "--threads wins over OMP_NUM_THREADS" "3 per rank (--threads 3)" \
  env OMP_NUM_THREADS=1 "$strata" "${train[@]}" --mode local --threads 3

err=$("$strata" "${train[@]}" --mode local --threads 0 2>&1 >/dev/null) && status=0 || status=$?
if [[ $status -ne 2 || $(grep -c . <<<"$err") -ne 1 || $err != *--threads* ]]; then
  echo "FAIL --threads 0: status $status: $err"
  failures=$((failures + 1))
else
  echo "ok   --threads 0 is refused: $err"
fi
echo "$failures failures"
[[ $failures -eq 0 ]]
