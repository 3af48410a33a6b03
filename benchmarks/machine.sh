# Sourced by the benchmark scripts: machine_line prints what the figures ran on, for the
# header of every CSV. nproc --all: plain nproc obeys OMP_NUM_THREADS, which the scripts set.
machine_line() {
  echo "$(nproc --all) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(uname -m)"
}
