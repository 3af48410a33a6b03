#!/usr/bin/env bash
# GPU check, in two halves, so that a lent GPU machine (minutes of time, CUDA and NCCL but
# none of our Debian libraries, at most 64 MiB carried beside the source tree) spends its
# minutes running, not building:
#
#   scripts/gpu-check.sh --bundle DIR   on a Debian 12 build machine with the project's
#       packages and the CUDA toolkit (no GPU needed): builds the GPU tests, the GPU
#       benchmarks and the strata CLI with MPI, and packs them into DIR/payload.tar.gz
#       with every shared library they need that a bare CUDA image lacks, OpenMPI's
#       launcher and checksums, beside DIR/run.sh (scripts/gpu-check-run.sh). Ends by
#       running DIR/run.sh, which checks the bundle and, without a GPU, stops with
#       "no GPU" (status 2).
#   DIR/run.sh                          on the GPU machine: checks the bundle, runs
#       everything under time limits, logs into one folder (and $OUT), exits non-zero on
#       any failure.
#
# docs/gpu-check.md says what the check covers and how to run it on a lent machine.
# Environment: STRATA_GPU_ARCH (CUDA architectures, default 90), STRATA_BUNDLE_BUILD (the
# build folder, default build-bundle), JOBS (default nproc).
set -euo pipefail

# What the bundle holds and run.sh runs, in this order. Edit these lists; a target the
# build does not have is left out with a warning here and reported as missing by run.sh.
gpu_tests=(test_kernels test_gpu test_gpu_backend test_gpu_stages test_gpu_trainers test_gpu_comm)
sanitized_tests=(test_gpu)  # also under compute-sanitizer memcheck and initcheck
benchmarks=(bench_gpu bench_gpu_train)
cli=strata_cli  # the CMake target of bin/strata

# Libraries a bare CUDA image has (glibc, the toolkit's runtime libraries) or the GPU
# machine provides (the driver's libcuda, NCCL): never copied, and the only ones run.sh
# lets resolve outside the bundle.
provided='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libutil|libresolv|libcudart|libcublas|libcublasLt|libcusparse|libnvJitLink|libnccl|libcuda)\.so'
# OpenMPI components that need network fabrics or resource managers a single GPU node
# does not use: left out, with the libraries they would drag in.
unused_components='lib(ucp|uct|ucs|ucm|fabric|ibverbs|rdmacm|psm_infinipath|psm2|pmi|pmi2|flux-core|nl-[a-z0-9-]*)\.so'
max_bundle_bytes=$((64 * 1024 * 1024))

cd "$(dirname "$0")/.."
log() { echo "[gpu-check $(date -u +%T)] $*"; }
die() {
  echo "gpu-check: $*" >&2
  exit 1
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "${1:-0}"
}

build_targets() {
  local build=$1
  log "configure $build"
  mkdir -p "$build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${STRATA_GPU_ARCH:-90}" >"$build/configure.log" 2>&1 ||
    { tail -20 "$build/configure.log"; die "configure failed"; }
  grep -q '^NCCL_LIBRARY:FILEPATH=/' "$build/CMakeCache.txt" ||
    die "NCCL not found: the bundle's NCCL tests would only skip (see cmake/FindNCCL.cmake)"
  local known wanted=()
  known=$(cmake --build "$build" --target help)
  for target in "${gpu_tests[@]}" "${benchmarks[@]}" "$cli"; do
    if grep -q "^$target:" <<<"$known"; then
      wanted+=("$target")
    else
      log "warning: $target is not a target of this build: left out"
    fi
  done
  log "build ${wanted[*]}"
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${wanted[@]}" >"$build/build.log" 2>&1 ||
    { grep -m 20 -B2 -A6 'error' "$build/build.log"; die "build failed"; }
}

# Copies file into folder, stripped of what the loader does not need.
copy_stripped() {
  local file=$1 folder=$2
  mkdir -p "$folder"
  cp -L "$file" "$folder/"
  chmod u+w "$folder/$(basename "$file")"
  strip --strip-unneeded "$folder/$(basename "$file")" 2>/dev/null || true
}

# OpenMPI's launcher, help texts and the components a one-node run can use, laid out under
# DIR/mpi as under OpenMPI's prefix, so that OPAL_PREFIX=DIR/mpi relocates it. PMIx's own
# optional components stay out (run.sh turns them off).
copy_openmpi() {
  local dir=$1 mpirun prefix components needs
  mpirun=$(readlink -f "$(command -v mpirun)")
  prefix=$(ompi_info --path prefix --parsable | sed 's/.*:prefix://')
  components=$(ompi_info --path pkglibdir --parsable | sed 's/.*:pkglibdir://')
  local relative=${components#"$prefix"/}
  copy_stripped "$mpirun" "$dir/mpi/bin"
  mv "$dir/mpi/bin/$(basename "$mpirun")" "$dir/mpi/bin/mpirun"
  mkdir -p "$dir/mpi/$relative" "$dir/mpi/share"
  cp -r "$(ompi_info --path pkgdatadir --parsable | sed 's/.*:pkgdatadir://')" "$dir/mpi/share/"
  for component in "$components"/*.so; do
    needs=$(ldd "$component")
    grep -Eq "$unused_components|not found" <<<"$needs" && continue
    copy_stripped "$component" "$dir/mpi/$relative"
  done
}

# The ELF files (executables, libraries) under the given folders.
elf_files() {
  find "$@" -type f -print0 | while IFS= read -r -d '' file; do
    [[ $(head -c 4 "$file" | od -An -c | tr -d ' ') == 177ELF ]] && echo "$file"
  done
}

# Every library the ELF files under dir need that is not provided, into dir/lib (the C++
# runtime into dir/lib/gcc: run.sh uses it only where the machine's is older).
copy_libraries() {
  local dir=$1 missing=0
  while read -r name path; do
    [[ $name =~ $provided ]] && continue
    if [[ $path == "not" ]]; then
      echo "gpu-check: $name not found on this machine" >&2
      missing=1
      continue
    fi
    case $name in
      libstdc++.so.* | libgcc_s.so.*) copy_stripped "$path" "$dir/lib/gcc" ;;
      *) copy_stripped "$path" "$dir/lib" ;;
    esac
  done < <(elf_files "$dir/bin" "$dir/mpi" | xargs -n1 ldd 2>/dev/null |
             awk '/=>/ {print $1, $3}' | sort -u)
  return $missing
}

# The newest symbol version of `prefix` (GLIBC, GLIBCXX) the bundle's ELF files need.
newest_version() {
  local dir=$1 prefix=$2
  elf_files "$dir" | xargs -n1 objdump -T 2>/dev/null | grep -o "${prefix}_[0-9][0-9.]*" |
    sed "s/${prefix}_//" | sort -uV | tail -1
}

write_config() {
  local dir=$1 tests=() sanitized=() benches=()
  for t in "${gpu_tests[@]}"; do tests+=("$t"); done
  for t in "${sanitized_tests[@]}"; do sanitized+=("$t"); done
  for t in "${benchmarks[@]}"; do benches+=("$t"); done
  {
    echo "# Written by scripts/gpu-check.sh --bundle; read by run.sh."
    echo "gpu_tests=(${tests[*]})"
    echo "sanitized_tests=(${sanitized[*]})"
    echo "benchmarks=(${benches[*]})"
    echo "provided='$provided'"
    echo "glibc_needed=$(newest_version "$dir" GLIBC)"
    echo "glibcxx_needed=$(newest_version "$dir" GLIBCXX)"
    echo "cuda_runtime=$(elf_files "$dir/bin" | xargs -n1 ldd | awk '/libcudart/ {print $1; exit}')"
    echo "source_commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo +changes)"
    echo "built_on='$(date -u +%F) $(. /etc/os-release && echo "$PRETTY_NAME"), CUDA arch ${STRATA_GPU_ARCH:-90}'"
  } >"$dir/bundle.conf"
}

# DIR/payload.tar.gz (the binaries, libraries and MPI, with bundle.conf and a checksum
# manifest), its checksum, and DIR/run.sh, which unpacks it: compressed, the bundle keeps
# well under what a lent machine carries (OpenBLAS alone is 36 MB unpacked).
make_bundle() {
  local dir=$1 build=${STRATA_BUNDLE_BUILD:-build-bundle}
  command -v nvcc >/dev/null || die "nvcc not found on PATH"
  command -v ompi_info >/dev/null || die "OpenMPI (ompi_info, mpirun) not found"
  build_targets "$build"
  local root=$build/bundle-root
  log "assemble $root"
  rm -rf "$root"
  mkdir -p "$root/bin" "$root/lib"
  for target in "${gpu_tests[@]}" "${benchmarks[@]}" strata; do
    [[ -f $build/bin/$target ]] && copy_stripped "$build/bin/$target" "$root/bin"
  done
  copy_openmpi "$root"
  copy_libraries "$root" || die "libraries missing on this machine (above)"
  write_config "$root"
  (cd "$root" && find . -type f ! -name MANIFEST.sha256 -print0 | sort -z |
    xargs -0 sha256sum >MANIFEST.sha256)
  log "pack $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar -czf "$dir/payload.tar.gz" -C "$root" .
  (cd "$dir" && sha256sum payload.tar.gz >payload.sha256)
  cp scripts/gpu-check-run.sh "$dir/run.sh"
  chmod +x "$dir/run.sh"
  local bytes unpacked
  bytes=$(du -sb "$dir" | cut -f1)
  unpacked=$(du -sb "$root" | cut -f1)
  log "bundle $dir: $((bytes / 1024 / 1024)) MiB ($bytes bytes; $((unpacked / 1024 / 1024)) MiB," \
    "$(find "$root" -type f | wc -l) files unpacked)"
  ((bytes < max_bundle_bytes)) || die "the bundle is over 64 MiB, what a lent GPU machine carries"
  log "checking it here: $dir/run.sh"
  local status=0
  "$dir/run.sh" || status=$?
  rm -rf "$dir/logs" "$dir/root"
  ((status == 0 || status == 2)) || die "$dir/run.sh failed here (status $status)"
}

case ${1:-} in
  --bundle)
    [[ -n ${2:-} ]] || usage 1
    make_bundle "$2"
    ;;
  -h | --help) usage 0 ;;
  *) usage 1 ;;
esac
