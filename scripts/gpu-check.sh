#!/usr/bin/env bash
# GPU check: builds the kernels and their GPU tests on a machine with a GPU, the CUDA
# toolkit and CMake but none of our Debian libraries, runs the tests and a short
# benchmark, and prints a summary. Finishes in a few minutes.
#
#   scripts/gpu-check.sh --fetch   on a Debian 12 machine with network: downloads the .debs
#                                  the build needs into third_party/debs (git-ignored)
#   scripts/gpu-check.sh           on the GPU machine (third_party/debs carried along):
#                                  unpacks them into build-gpu/prefix, builds the kernels-only
#                                  configuration (STRATA_KERNELS_ONLY), runs test_kernels,
#                                  test_gpu, test_gpu_backend, test_gpu_stages,
#                                  test_gpu_trainers and test_gpu_comm, then bench_gpu
#                                  (SpMM) on a 2M-vertex R-MAT graph and bench_gpu_train (GCN
#                                  epochs at 2 and 16 layers, GCNII at 16, GPU against CPU) on
#                                  a 2M-vertex SBM
# Environment: STRATA_GPU_ARCH (CUDA architectures, default 90), STRATA_GPU_NODES (R-MAT
# vertices for the benchmark, default 2097152), JOBS (default nproc).
# bench_gpu_train times the engine `strata train --device cuda` runs, and
# test_gpu_trainers runs the trainers of every mode with ranks as threads; the CLI itself
# needs MPI, which this build leaves out.
set -euo pipefail
cd "$(dirname "$0")/.."
debs=third_party/debs
packages=(catch2 zlib1g-dev libopenblas0-openmp libopenblas-openmp-dev libgfortran5 libgomp1
          libmetis5 libmetis-dev libboost1.74-dev)

if [[ ${1:-} == --fetch ]]; then
  mkdir -p "$debs"
  (cd "$debs" && apt-get download "${packages[@]}")
  ls -l "$debs"
  exit 0
fi

build=build-gpu
prefix=$PWD/$build/prefix
log() { echo "[gpu-check $(date -u +%T)] $*"; }
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found on PATH" >&2; exit 1; }
mkdir -p "$prefix"
if compgen -G "$debs/*.deb" >/dev/null; then
  for deb in "$debs"/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$prefix"
    else  # a .deb is an ar archive holding data.tar.*
      (cd "$prefix" && ar p "$OLDPWD/$deb" "$(ar t "$OLDPWD/$deb" | grep '^data.tar')" | tar -xJ)
    fi
  done
  log "unpacked $(ls "$debs" | wc -l) packages into $prefix"
fi
lib=$prefix/usr/lib/x86_64-linux-gnu
blas=$lib/openblas-openmp/libopenblas.so
cmake_args=(-DSTRATA_KERNELS_ONLY=ON -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_CUDA_ARCHITECTURES="${STRATA_GPU_ARCH:-90}")
if [[ -f $blas ]]; then
  export LD_LIBRARY_PATH=$lib/openblas-openmp:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix/usr" -DBLAS_LIBRARIES="$blas"
               -DCMAKE_CXX_FLAGS="-I$prefix/usr/include/x86_64-linux-gnu/openblas-openmp"
               -DZLIB_ROOT="$prefix/usr")
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
log "configure"
cmake -S . -B "$build" "${generator[@]}" "${cmake_args[@]}" >"$build/configure.log" 2>&1 ||
  { tail -20 "$build/configure.log"; exit 1; }
log "build"
targets=(test_kernels test_gpu test_gpu_backend test_gpu_comm bench_gpu)
# The engine's tests and benchmark exist where CMake found METIS and Boost (the prefix's,
# or the system's).
cmake --build "$build" --target help 2>/dev/null | grep -q test_gpu_trainers &&
  targets+=(test_gpu_stages test_gpu_trainers bench_gpu_train)
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}" \
  >"$build/build.log" 2>&1 || { grep -m 20 -B2 -A6 'error' "$build/build.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true

status=0
log "test_kernels (CPU kernels, the references)"
"$build/bin/test_kernels" >"$build/test_kernels.log" 2>&1 || status=1
tail -2 "$build/test_kernels.log"
log "test_gpu (every GPU kernel against its CPU twin)"
"$build/bin/test_gpu" --success --reporter compact >"$build/test_gpu.log" 2>&1 || status=1
grep -E "skipped|failed|passed" "$build/test_gpu.log" | tail -8
log "test_gpu_backend (the CUDA backend's operations against the CPU backend's)"
"$build/bin/test_gpu_backend" --success --reporter compact >"$build/test_gpu_backend.log" 2>&1 || status=1
grep -E "skipped|failed|passed" "$build/test_gpu_backend.log" | tail -4
if [[ -x $build/bin/test_gpu_trainers ]]; then
  log "test_gpu_stages (a whole model, and two pipeline stages with device staging, against the CPU)"
  "$build/bin/test_gpu_stages" --success --reporter compact >"$build/test_gpu_stages.log" 2>&1 ||
    status=1
  grep -E "skipped|failed|passed" "$build/test_gpu_stages.log" | tail -4
  log "test_gpu_trainers (every mode's trainer on CUDA, device staging, against the CPU backend)"
  "$build/bin/test_gpu_trainers" --success --reporter compact >"$build/test_gpu_trainers.log" 2>&1 ||
    status=1
  grep -E "skipped|failed|passed" "$build/test_gpu_trainers.log" | tail -4
else
  log "test_gpu_stages and test_gpu_trainers not built: METIS or Boost's headers not found"
  status=1
fi
log "test_gpu_comm (NCCL and device staging against the communicator checks)"
"$build/bin/test_gpu_comm" --success --reporter compact >"$build/test_gpu_comm.log" 2>&1 || status=1
grep -E "skipped|failed|passed|one GPU" "$build/test_gpu_comm.log" | tail -8
if grep -q "no CUDA device answers" "$build/test_gpu.log"; then
  echo "gpu-check: no CUDA device answered, so no GPU test ran" >&2
  [[ $status == 0 ]] && status=2  # a CPU failure above still reads as FAILED
fi
if [[ $status != 2 ]]; then
  log "bench_gpu: cuSPARSE SpMM against the device copy bandwidth"
  "$build/bin/bench_gpu" "${STRATA_GPU_NODES:-2097152}" 16 | tee "$build/bench_gpu.csv" || status=1
  log "bench_gpu_train: GCN (2, 16 layers) and GCNII (16) epoch time, CUDA against the CPU backend"
  "$build/bin/bench_gpu_train" "${STRATA_GPU_NODES:-2097152}" 2 64 | tee "$build/bench_gpu_train.csv" ||
    status=1
fi
outcome=([0]=passed [1]=FAILED [2]="not run: no GPU")
log "summary: GPU tests ${outcome[$status]}$([[ $status != 2 ]] && echo "; benchmark CSVs in $build/bench_gpu.csv and $build/bench_gpu_train.csv")"
exit $status
