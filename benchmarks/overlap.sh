#!/usr/bin/env bash
# Graph mode with the halo exchange overlapped (--overlap, the default) and not
# (--no-overlap), side by side on the emulated cluster (scripts/cluster.sh): 16-layer
# GCNII, hidden 64, coauthor_physics with binarized raw features, one rank on each of 2
# hosts, links at 1 and 10 Gbit/s. Each round runs both in turn on the same cluster. A
# run's figures are the medians over its epochs after 2 warm-up epochs: epoch time and
# time waiting in communication (the larger of the two ranks'). The results are the same
# bits either way (tests/training); this measures only the time.
# Usage: benchmarks/overlap.sh [--quick]   (--quick: a synthetic graph, 1 Gbit/s, 1 round)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS, STRATA_RESULTS,
# STRATA_ROUNDS (3), STRATA_GBITS ("1 10"), STRATA_EPOCHS (12), STRATA_BEFORE (another
# strata binary, e.g. an earlier commit's: each round runs it too, as build "before") and
# STRATA_BEFORE_LABEL (what it is, for the CSV's header). Needs root; skips (exit 0) when
# the dataset is missing or the cluster cannot be made.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
rounds=${STRATA_ROUNDS:-3} gbits=(${STRATA_GBITS:-1 10}) epochs=${STRATA_EPOCHS:-12}
dataset_args=()
raw=$results/raw_overlap
if [[ ${1:-} == --quick ]]; then
  rounds=1 gbits=(1) epochs=5 results=benchmarks/results/quick raw=$results/raw_overlap
  dataset_args=(--dataset synthetic --nodes 20000)
else
  physics_raw "$raw" || { echo "overlap: skipped (no coauthor_physics)"; exit 0; }
fi
mkdir -p "$raw"
export OMP_NUM_THREADS=1
csv=$results/overlap.csv
declare -A binary=([this]=$PWD/$strata)
builds=(this)
if [[ -n ${STRATA_BEFORE:-} ]]; then
  builds+=(before) binary[before]=$(realpath "$STRATA_BEFORE")
fi
echo "# machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); 2 hosts x 1 rank, GCNII 16 x 64, $epochs epochs${STRATA_BEFORE:+; build before: ${STRATA_BEFORE_LABEL:-$STRATA_BEFORE}}" >"$csv"
echo "gbit,build,overlap,round,epoch_s,comm_s,bytes_per_epoch,overlap_s" >>"$csv"
for gbit in "${gbits[@]}"; do
  for round in $(seq 1 "$rounds"); do
    for run in "${builds[@]/%/:overlap}" "${builds[@]/%/:no-overlap}"; do
      build=${run%%:*} overlap=${run#*:}
      out=$raw/g$gbit-$build-$overlap-r$round.jsonl
      if ! scripts/cluster.sh --hosts 2 --gbit "$gbit" -- mpirun -np 2 "${binary[$build]}" train \
        --mode graph --model gcnii --layers 16 --hidden 64 --epochs "$epochs" \
        "${dataset_args[@]}" "--$overlap" --metrics "$PWD/$out" >"${out%.jsonl}.log" 2>&1; then
        echo "overlap: the run failed or the cluster could not be made (${out%.jsonl}.log):"
        tail -n 3 "${out%.jsonl}.log"
        exit 0
      fi
      summary=$(python3 benchmarks/run_summary.py "$out" | cut -d, -f1-3,7)
      echo "$gbit,$build,$([[ $overlap == overlap ]] && echo True || echo False),$round,$summary" >>"$csv"
      echo "[$(date -u +%T)] $gbit Gbit/s, $build, $overlap, round $round: $(tail -n 1 "$csv")" >&2
    done
  done
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
for gbit in dict.fromkeys(r["gbit"] for r in rows):
    of = lambda on, k: statistics.median(float(r[k]) for r in rows if r["gbit"] == gbit
                                         and r["overlap"] == on and r["build"] == "this")
    on, off, comm = of("True", "epoch_s"), of("False", "epoch_s"), of("False", "comm_s")
    print(f"{gbit} Gbit/s: epoch {off:.3f} s without overlap, {on:.3f} s with; "
          f"saved {off - on:.3f} s = {100 * (off - on) / comm:.0f}% of the {comm:.3f} s "
          f"spent waiting without overlap (waiting with: {of('True', 'comm_s'):.3f} s)")
    before = [r for r in rows if r["gbit"] == gbit and r["build"] == "before"]
    if before:
        off_before = statistics.median(float(r["epoch_s"]) for r in before if r["overlap"] == "False")
        wait_before = statistics.median(float(r["comm_s"]) for r in before if r["overlap"] == "False")
        print(f"  against the build before without overlap ({off_before:.3f} s, waiting "
              f"{wait_before:.3f} s): saved {off_before - on:.3f} s = "
              f"{100 * (off_before - on) / wait_before:.0f}% of its wait")
PY
