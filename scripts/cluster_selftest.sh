#!/usr/bin/env bash
# Self-test of the emulated cluster (scripts/cluster.sh selftest): mpi_bandwidth streams
# from a rank on host 0 to a rank on host 1, and the median payload rate of 5 trials must
# be within 10% of each configured link rate (1 and 10 Gbit/s). For contrast it also
# measures the unshaped links (the ceiling of this machine) and two ranks on one host
# (shared memory); those are not judged.
#   scripts/cluster.sh selftest [--quick] [--bench PATH]
#   --quick       1 Gbit/s only, 8 MiB messages, no contrast runs (the ctest; ~3 s)
#   --bench PATH  the mpi_bandwidth binary (default build/bin/mpi_bandwidth)
# Exit status: 0 all rates within 10%, 1 one is not, 2 bad usage, 3 this machine cannot
# host the cluster (scripts/cluster.sh's own status).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/../build/bin/mpi_bandwidth
quick=0
trials=5
failed=0

die() {
  echo "cluster.sh selftest: $2" >&2
  exit "$1"
}

while (($#)); do
  case $1 in
    --quick) quick=1 trials=3 ;;
    --bench)
      (($# >= 2)) || die 2 "--bench needs a path"
      bench=$2
      shift
      ;;
    *) die 2 "unknown option '$1' (usage: scripts/cluster.sh selftest [--quick] [--bench PATH])" ;;
  esac
  shift
done
[[ -x $bench ]] || die 2 "no $bench (build it: cmake --build build --target mpi_bandwidth)"

# Median Gbit/s of one mpi_bandwidth run in a fresh cluster: measure CLUSTER_ARGS -- MPIRUN_ARGS
measure() {
  local args=() out rc=0
  while [[ $1 != -- ]]; do args+=("$1") && shift; done
  shift
  out=$(bash "$here/cluster.sh" "${args[@]}" -- mpirun "$@" 2>&1) || rc=$?
  if ((rc != 0)); then
    echo "$out" | tail -n 5 >&2
    exit "$rc"
  fi
  echo "$out" | awk '/^median:/ {print $2}'
}

# Messages large enough that the token bucket (1 ms at the rate) is under 1% of the bytes,
# ~2 s per trial, the median of 5 (3 with --quick): this machine's speed varies by run.
check_rate() {
  local gbit=$1 mib=$2 reps measured verdict
  reps=$(awk -v g="$gbit" -v m="$mib" 'BEGIN {
    r = int(g * 1e9 / 8 * 2 / (m * 1048576)); print r < 4 ? 4 : r }')
  ((quick)) && reps=8
  measured=$(measure --hosts 2 --gbit "$gbit" -- -np 2 "$bench" --mib "$mib" --reps "$reps" \
    --trials "$trials")
  verdict=$(awk -v m="$measured" -v g="$gbit" 'BEGIN {
    r = m / g; printf "%.3f %s", r, (r >= 0.9 && r <= 1.1) ? "ok" : "FAIL" }')
  printf '%-34s %8s Gbit/s %10s Gbit/s  %s\n' "2 hosts, tbf" "$gbit" "$measured" "$verdict"
  [[ $verdict == *ok ]] || failed=1
}

contrast() {
  local what=$1 measured
  shift
  measured=$(measure "$@" -- -np 2 "$bench" --mib 64 --reps 32)
  printf '%-34s %8s        %10s Gbit/s\n' "$what" "-" "$measured"
}

commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')
cores=$(getconf _NPROCESSORS_ONLN)
echo "cluster selftest: $(date -u +%F), commit $commit, $cores cores, MTU 9000"
printf '%-34s %15s %17s  %s\n' "rank 0 -> rank 1" configured measured "ratio"
if ((quick)); then
  check_rate 1 8
else
  contrast "2 hosts, unshaped (veth ceiling)" --hosts 2 --gbit none
  check_rate 1 64
  check_rate 10 64
  contrast "1 host, shared memory (vader)" --hosts 1 --ranks-per-host 2 --gbit none
fi
((failed == 0)) ||
  die 1 "a measured rate is off by more than 10% (a busy machine? see the unshaped ceiling)"
echo "selftest passed"
