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

# coauthor_physics with binarized raw features, converted once into DIR; sets
# dataset_args to train on it. Fails (status 1) when the dataset is missing.
physics_raw() {  # physics_raw DIR
  [[ -d $datasets/coauthor_physics ]] || return 1
  mkdir -p "$1"
  [[ -f $1/physics-raw.strata ]] || "$strata" convert --dataset "$datasets/coauthor_physics" \
    --binarize --row-normalize 0 --out "$1/physics-raw.strata" >/dev/null
  dataset_args=(--dataset "$1/physics-raw.strata" --row-normalize 0)
}
