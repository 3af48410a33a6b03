#!/usr/bin/env bash
# Threads per rank: `mpirun -np 4 strata train --mode graph --dataset synthetic` with
# OMP_NUM_THREADS unset (Strata chooses) against OMP_NUM_THREADS=1, on whatever cores this
# machine has (4 ranks on 2 cores oversubscribe them). Each round runs both settings one
# after the other; a run's figure is its median epoch after two warm-up epochs. With
# STRATA_BEFORE=BINARY the same runs are made with another build (one that leaves threads to
# OpenMP's default) for comparison.
# Usage: benchmarks/threads.sh [--quick]   (--quick: 2 rounds of 20 epochs; else 5 of 60)
# Environment: STRATA_BUILD (default build), STRATA_RESULTS (default benchmarks/results),
# STRATA_BEFORE (optional binary).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
strata=${STRATA_BUILD:-build}/bin/strata
results=${STRATA_RESULTS:-benchmarks/results}
rounds=5 epochs=60
if [[ ${1:-} == --quick ]]; then rounds=2 epochs=20; fi
log() { echo "[$(date -u +%T)] $*" >&2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset OMP_NUM_THREADS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run BINARY OMP: prints "median_epoch_s,threads line" of one run.
run() {
  local binary=$1 omp=$2
  local env=()
  [[ $omp == unset ]] || env=(OMP_NUM_THREADS="$omp")
  rm -f "$tmp/m.jsonl"
  env "${env[@]}" mpirun -np 4 "$binary" train --mode graph --dataset synthetic --epochs "$epochs" \
    --metrics "$tmp/m.jsonl" >"$tmp/out.txt"
  local line
  line=$(sed -n 's/^threads: //p' "$tmp/out.txt" | tr ',' ';')
  python3 -c '
import json, statistics, sys
e = [json.loads(l)["epoch_s"] for l in open(sys.argv[1]) if "\"event\":\"epoch\"" in l.replace(" ", "")]
print(f"{statistics.median(e[2:]):.5f}", end="")' "$tmp/m.jsonl"
  echo ",${line:-(not printed)}"
}

builds=("after $strata")
[[ -z ${STRATA_BEFORE:-} ]] || builds=("before $STRATA_BEFORE" "${builds[@]}")
csv=$results/threads.csv
mkdir -p "$results"
{
  echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); load average at start $(cut -d" " -f1-3 /proc/loadavg); mpirun -np 4 strata train --mode graph --dataset synthetic --epochs $epochs; median epoch after 2 warm-up epochs; $rounds rounds${STRATA_BEFORE:+; before: $STRATA_BEFORE}"
  echo "build,omp_num_threads,round,epoch_s,threads_line"
} >"$csv"
for ((r = 0; r < rounds; ++r)); do
  for build in "${builds[@]}"; do
    read -r name binary <<<"$build"
    for omp in unset 1; do
      got=$(run "$binary" "$omp")
      log "$name, OMP_NUM_THREADS $omp, round $r: $got"
      echo "$name,$omp,$r,$got" >>"$csv"
    done
  done
done
python3 - "$csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
for build in dict.fromkeys(r["build"] for r in rows):
    m = {o: statistics.median(float(r["epoch_s"]) for r in rows if r["build"] == build and r["omp_num_threads"] == o)
         for o in ("unset", "1")}
    print(f"{build}: unset {m['unset']:.5f} s, OMP_NUM_THREADS=1 {m['1']:.5f} s, ratio {m['unset'] / m['1']:.2f}")
EOF
