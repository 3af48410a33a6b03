#!/usr/bin/env bash
# scripts/cluster.sh: bad input stops with one line and leaves nothing behind; a run ended
# by TERM removes its namespaces and processes; the quick bandwidth self-test passes; graph
# mode across two shaped hosts trains to the same weight bits with the halo overlapped and not.
# Exits 77 (skipped) where this machine cannot create network namespaces.
#   cluster_emulation.sh SCRIPTS_DIR MPI_BANDWIDTH STRATA
set -uo pipefail
cluster=$1/cluster.sh
bench=$2
strata=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# What a run with this pid left: namespaces or a temporary folder.
leftovers() {
  {
    ip netns list 2>/dev/null | awk '{print $1}' | grep "^strata-cl-$1-"
    ls -d /tmp/strata-cl-"$1".* 2>/dev/null
  } | tr '\n' ' '
}

# expect NAME STATUS PATTERN [PREFIX...] -- ARGS...: scripts/cluster.sh ARGS (run through
# PREFIX, e.g. setpriv, which keeps the pid) ends with STATUS, one stderr line containing
# PATTERN, and leaves nothing. No timeout: it would hide the pid, and these end at once.
expect() {
  local name=$1 want=$2 pattern=$3 prefix=() status=0 pid err lines left
  shift 3
  while [[ $1 != -- ]]; do prefix+=("$1") && shift; done
  shift
  "${prefix[@]}" bash "$cluster" "$@" >/dev/null 2>"$tmp/err" &
  pid=$!
  wait "$pid" || status=$?
  err=$(cat "$tmp/err")
  lines=$(grep -c . "$tmp/err")
  left=$(leftovers "$pid")
  if [[ $status -ne $want || $lines -ne 1 || $err != *"$pattern"* || -n $left ]]; then
    echo "FAIL $name: status $status (want $want), $lines lines: $err ${left:+left: $left}"
    failures=$((failures + 1))
  else
    echo "ok   $name: $err"
  fi
}

expect "rate not a number" 2 "--gbit must be" -- --gbit fast -- true
expect "rate zero" 2 "--gbit must be" -- --gbit 0 -- true
expect "rate negative" 2 "--gbit must be" -- --gbit -1 -- true
expect "rate too large for tbf" 2 "--gbit must be" -- --gbit 100000 -- true
expect "no command" 2 "no command" -- --hosts 2

probe_status=0
probe=$(timeout -k 5 60 bash "$cluster" --hosts 1 --gbit 1 -- true 2>&1) || probe_status=$?
if ((probe_status == 3)); then
  echo "SKIP: this machine cannot host the emulated cluster: $probe"
  exit 77
fi

expect "not root" 3 "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups \
  -- --gbit 1 -- true
expect "no namespaces (no CAP_SYS_ADMIN)" 3 "CAP_SYS_ADMIN" setpriv --bounding-set=-sys_admin \
  -- --gbit 1 -- true
# A read-only /run, in a mount namespace of its own: `ip netns add` fails.
expect "namespace refused" 3 "cannot create network namespace" \
  unshare -m sh -c 'mount -t tmpfs -o ro tmpfs /run && exec "$@"' sh -- --gbit 1 -- true

# TERM while ranks run on both hosts: exit 143, nothing left (sleep 60 would outlive it).
bash "$cluster" --hosts 2 --gbit 1 -- mpirun -np 2 sleep 60 >"$tmp/term.out" 2>&1 &
pid=$!
for _ in {1..100}; do
  [[ $(ip netns pids "strata-cl-$pid-h1" 2>/dev/null) ]] && break
  sleep 0.1
done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
left=$(leftovers "$pid")
if [[ $status -ne 143 || -n $left ]]; then
  echo "FAIL TERM mid-run: status $status (want 143) ${left:+left: $left}"
  failures=$((failures + 1))
else
  echo "ok   TERM mid-run: status 143, nothing left"
fi

if timeout -k 5 90 bash "$cluster" selftest --quick --bench "$bench"; then
  echo "ok   selftest --quick"
else
  echo "FAIL selftest --quick"
  failures=$((failures + 1))
fi
for overlap in overlap no-overlap; do
  timeout -k 5 60 bash "$cluster" --hosts 2 --gbit 10 -- mpirun -np 2 "$strata" train \
    --mode graph --dataset synthetic --nodes 6000 --epochs 3 --"$overlap" \
    --save-weights "$tmp/$overlap.bin" >"$tmp/$overlap.out" 2>&1 ||
    { echo "FAIL graph mode --$overlap across the cluster: $(tail -n 1 "$tmp/$overlap.out")"; failures=$((failures + 1)); }
done
if cmp -s "$tmp/overlap.bin" "$tmp/no-overlap.bin"; then
  echo "ok   graph mode across 2 hosts: the same weight bits with and without overlap"
else
  echo "FAIL graph mode across 2 hosts: weights differ with and without overlap"
  failures=$((failures + 1))
fi
exit $((failures > 0))
