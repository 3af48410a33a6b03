#!/bin/bash
# Installs the build into a fresh prefix, builds examples/embed against it with
# find_package(strata) and again with pkg-config, and runs it on 2 threads and on 2 MPI
# ranks. Fails if the install tree holds any header but the public ones.
# usage: install_embed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install_embed: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
installed=$(cd "$work/prefix/include" && find . -type f | sort)
public=$(cd "$src/include" && find . -type f -name '*.h' | sort)
[ "$installed" == "$public" ] || fail "installed headers differ from include/strata: $installed"

cmake -S "$src/examples/embed" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  >/dev/null || fail "configuring the example against the install failed"
cmake --build "$work/build" >/dev/null || fail "building the example failed"

check_output() {  # the example learned its easy task in both modes and read the weights back
  echo "$1"
  for mode in "graph mode" "pipeline mode" "graph-mode weights in pipeline mode"; do
    acc=$(echo "$1" | sed -n "s/^$mode: test accuracy \([0-9.]*\).*/\1/p")
    [ -n "$acc" ] || fail "no '$mode' line"
    awk -v a="$acc" 'BEGIN { exit !(a >= 0.9) }' || fail "$mode: test accuracy $acc < 0.9"
  done
}
# run_example COMMAND...: its output, checked; a non-zero exit status fails the test.
run_example() {
  local out status=0
  out=$("$@" 2>&1) || status=$?
  [ "$status" -eq 0 ] || fail "'$*' exited with status $status: $(echo "$out" | tail -n 5)"
  check_output "$out"
}
cd "$work"
run_example "$work/build/embed"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
c++ $(pkg-config --cflags strata) "$src/examples/embed/main.cpp" -o embed_pc \
  $(pkg-config --libs strata) || fail "building with pkg-config failed"
run_example ./embed_pc

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
run_example mpirun -np 2 "$work/build/embed" --mpi
echo "install_embed: ok"
