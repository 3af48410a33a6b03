# Sourced by the benchmark scripts: machine_line prints what the figures ran on, for the
# header of every CSV. nproc --all: plain nproc obeys OMP_NUM_THREADS, which the scripts set.
machine_line() {
  echo "$(nproc --all) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(uname -m)"
}

# The paths a benchmark uses: strata (STRATA_BUILD, default build-bench), datasets
# (STRATA_DATASETS, default ../shared/datasets) and results (STRATA_RESULTS, default
# benchmarks/results; made if missing).
bench_paths() {
  strata=${STRATA_BUILD:-build-bench}/bin/strata
  datasets=${STRATA_DATASETS:-../shared/datasets}
  results=${STRATA_RESULTS:-benchmarks/results}
  mkdir -p "$results"
}
