#!/usr/bin/env bash
# run.sh of a GPU-check bundle (scripts/gpu-check.sh --bundle DIR copies this file to
# DIR/run.sh). On a lent GPU machine, from the repository root: DIR/run.sh
#
# 1. Checks the bundle itself: checksums (payload.sha256, then MANIFEST.sha256 inside the
#    payload, which it unpacks into DIR/root), the machine's glibc and C++ runtime
#    against what the binaries need, ldd on every binary and library (nothing missing but
#    the driver's libcuda and NCCL, nothing resolved outside the bundle but glibc, the
#    CUDA runtime libraries and NCCL), and the CLI on 2 MPI ranks on the CPU through the
#    bundle's own mpirun.
# 2. Without an NVIDIA GPU stops there: "no GPU", status 2.
# 3. With one, runs, each under a time limit and all within STRATA_CHECK_BUDGET_S: the GPU
#    tests; the strata CLI on a synthetic graph with --device cuda in every mode (local,
#    graph, pipeline, hybrid) with gcn, gcnii and gat, gcnii also with --compress int8 (NCCL
#    with one rank per GPU where the GPUs allow, else MPI staged through host memory on
#    shared GPUs); compute-sanitizer memcheck and initcheck on the kernel tests; the GPU
#    benchmarks.
#
# Every step writes its own log into LOGDIR (default DIR/logs); summary.txt there lists
# every step's outcome. When OUT is set (a lent machine brings back at most 8 files), the
# summary and one .tar.gz of all logs are copied there.
# Exit status: 0 every step passed; 1 a step failed, timed out, was missing or did not fit
# the budget; 2 no GPU (the bundle checked out).
# Environment: STRATA_CHECK_BUDGET_S (default 540), LOGDIR, OUT; STRATA_CHECK_GPUS=N
# assumes N GPUs (to try this script where there is none: every GPU step then fails).
# shellcheck disable=SC2317,SC2154  # functions run through bash -c; lists from bundle.conf
set -uo pipefail # no -e: every step runs and its outcome is recorded

bundle=$(cd "$(dirname "$0")" && pwd)
here=$bundle/root # the unpacked payload
deadline=$((SECONDS + ${STRATA_CHECK_BUDGET_S:-540}))
logs=${LOGDIR:-$bundle/logs}
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs/summary.txt"
summary=$logs/summary.txt
failed=0
gpus=0

note() { echo "$*" | tee -a "$summary"; }
record() { printf '%-34s %s\n' "$1" "$2" | tee -a "$summary"; }

finish() {
  local status=$1
  note "---"
  case $status in
    0) note "gpu-check: PASSED (every step)" ;;
    2) note "gpu-check: no GPU: the bundle checked out, no GPU step ran (status 2)" ;;
    *) note "gpu-check: FAILED (see the steps above and their logs in $logs)" ;;
  esac
  if [[ -n ${OUT:-} ]]; then
    mkdir -p "$OUT"
    cp "$summary" "$OUT/summary.txt"
    tar -czf "$OUT/gpu-check-logs.tar.gz" -C "$logs" .
  fi
  exit "$status"
}

# step NAME LIMIT_S COMMAND...: runs COMMAND with its output in NAME.log, under the
# smaller of LIMIT_S and what is left of the budget.
step() {
  local name=$1 limit=$2 left=$((deadline - SECONDS))
  shift 2
  if ((left < 15)); then
    record "$name" "NOT RUN: the budget is spent"
    failed=1
    return 1
  fi
  ((limit > left)) && limit=$left
  local start=$SECONDS rc=0
  STEP_LOG=$logs/$name.log timeout -k 10 "$limit" bash -c '"$@"' "$name" "$@" \
    >"$logs/$name.log" 2>&1 || rc=$?
  local took="$((SECONDS - start)) s"
  if ((rc == 0)); then
    record "$name" "passed ($took)$(catch_totals "$name")"
  elif ((rc == 124 || rc == 137)); then
    record "$name" "TIMED OUT after $limit s"
    failed=1
  else
    record "$name" "FAILED, status $rc ($took)$(catch_totals "$name"): $(failure_line "$name")"
    failed=1
  fi
  return $rc
}

# The line of a failed step's log that says most: gpu-check's verdict, strata's or CUDA's
# error, else the last line.
failure_line() {
  local log=$logs/$1.log
  grep -m1 '^gpu-check: ' "$log" || grep -m1 -E '^strata: |FAILED|error:' "$log" || tail -1 "$log"
}

# Catch2's closing line, where the log has one.
catch_totals() {
  local line
  line=$(grep -E '^(All tests passed|test cases:)' "$logs/$1.log" | tail -1)
  [[ -n $line ]] && echo ": $line"
}

# Runs COMMAND... with the bundle's libraries and MPI first: OpenMPI relocated into the
# bundle, and no plugin of PMIx or hwloc from wherever the machine keeps its own.
in_bundle() {
  LD_LIBRARY_PATH=$bundle_path OPAL_PREFIX=$here/mpi PMIX_MCA_prm=^default,slurm \
    PMIX_MCA_pcompress=^zlib HWLOC_PLUGINS_PATH=$here/mpi "$@"
}

elf_files() {
  find "$@" -type f -print0 | while IFS= read -r -d '' file; do
    [[ $(head -c 4 "$file" | od -An -c | tr -d ' ') == 177ELF ]] && echo "$file"
  done
}

# A folder holding `library` where the loader would not look by itself: the toolkit's,
# or NVIDIA's pip wheels' (nvidia/*/lib in python3's packages).
library_folder() {
  local library=$1 folder wheels
  ldconfig -p | grep -q " $library " && return 0
  wheels=$(python3 -c 'import nvidia, os; [print(os.path.join(p, d, "lib")) for p in nvidia.__path__ for d in os.listdir(p)]' 2>/dev/null)
  for folder in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
    $wheels /usr/local/lib/python3*/dist-packages/nvidia/*/lib; do
    [[ -f $folder/$library ]] && { echo "$folder"; return 0; }
  done
}

# LD_LIBRARY_PATH for the bundle's programs: its libraries, its C++ runtime where the
# machine's is older than the binaries need, the CUDA runtime and NCCL where found.
set_library_path() {
  bundle_path=$here/lib
  local system_cxx
  system_cxx=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 / {print $NF; exit}')
  cxx_runtime=system
  if [[ -z $system_cxx ]] || ! grep -qa "GLIBCXX_$glibcxx_needed" "$system_cxx"; then
    bundle_path+=:$here/lib/gcc
    cxx_runtime=bundle
  fi
  local library folder
  for library in "$cuda_runtime" libnccl.so.2; do
    folder=$(library_folder "$library")
    [[ -n $folder ]] && bundle_path+=:$folder
  done
  bundle_path+=${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

check_glibc() {
  local have
  have=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
  echo "glibc $have here, $glibc_needed needed"
  [[ $(printf '%s\n' "$glibc_needed" "$have" | sort -V | head -1) == "$glibc_needed" ]]
}

# ldd on every ELF file of the bundle: prints each dependency that is missing or comes
# from outside the bundle, and fails on any but the provided ones (libcuda and NCCL may be
# missing on a machine without a GPU; the machine's C++ runtime serves when it is new
# enough).
check_libraries() {
  local bad=0 file name path
  while IFS= read -r file; do
    while read -r name path; do
      if [[ $path == not ]]; then
        if [[ $name =~ ^(libcuda|libnccl)\.so ]] && ((gpus == 0)); then
          echo "${file#"$here"/}: $name not found (the GPU machine provides it)"
        else
          echo "${file#"$here"/}: $name NOT FOUND"
          bad=1
        fi
      elif [[ $path != "$here"/* && ! $name =~ $provided ]] &&
        ! [[ $cxx_runtime == system && $name =~ ^(libstdc\+\+|libgcc_s)\.so ]]; then
        echo "${file#"$here"/}: $name from $path, outside the bundle (a bare CUDA image lacks it)"
        bad=1
      fi
    done < <(in_bundle ldd "$file" 2>&1 | awk '/=>/ {print $1, ($3 == "not" ? "not" : $3)}')
  done < <(elf_files "$here/bin" "$here/lib" "$here/mpi")
  echo "$(elf_files "$here/bin" "$here/lib" "$here/mpi" | wc -l) ELF files checked"
  return $bad
}

count_gpus() {
  if [[ -n ${STRATA_CHECK_GPUS:-} ]]; then # to try this script itself where no GPU is
    gpus=$STRATA_CHECK_GPUS
  elif command -v nvidia-smi >/dev/null; then
    nvidia-smi -L >"$logs/nvidia-smi.log" 2>&1 || return 1
    gpus=$(grep -c '^GPU ' "$logs/nvidia-smi.log")
  elif compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
    gpus=$(compgen -G '/dev/nvidia[0-9]*' | wc -l)
  fi
}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm=isolated
# Containers often forbid the cross-memory attach that OpenMPI's shared memory uses.
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# strata train on a synthetic graph under the bundle's mpirun:
# cli MODE MODEL RANKS COMM DEVICE [ARGS...]
cli() {
  local mode=$1 model=$2 ranks=$3 comm=$4 device=$5
  shift 5
  in_bundle "$here/mpi/bin/mpirun" -np "$ranks" -x OMP_NUM_THREADS=2 -x LD_LIBRARY_PATH \
    -x OPAL_PREFIX -x PMIX_MCA_prm -x PMIX_MCA_pcompress -x HWLOC_PLUGINS_PATH "$here/bin/strata" train --mode "$mode" --model "$model" \
    --device "$device" ${comm:+--comm "$comm"} --dataset synthetic --nodes 20000 \
    --avg-degree 10 --features 64 --classes 8 --epochs 5 --layers 4 --hidden 32 "$@"
}

# The payload, checked, unpacked into root/ and checked file by file.
unpack() {
  (cd "$bundle" && sha256sum -c payload.sha256) || return 1
  rm -rf "$here" && mkdir -p "$here" && tar -xzf "$bundle/payload.tar.gz" -C "$here" &&
    (cd "$here" && sha256sum --quiet -c MANIFEST.sha256) &&
    echo "$(wc -l <"$here/MANIFEST.sha256") files unpacked and checked"
}

check_bundle() {
  step bundle-checksums 120 unpack || finish 1
  # shellcheck source=/dev/null
  source "$here/bundle.conf"
  export provided glibc_needed
  note "gpu-check bundle $source_commit, built $built_on; on $(uname -n), $(date -u +%FT%TZ)"
  count_gpus || { record nvidia-smi "FAILED: the driver does not answer ($(tail -1 "$logs/nvidia-smi.log"))"; finish 1; }
  set_library_path
  export bundle_path gpus cxx_runtime
  step bundle-glibc 10 check_glibc
  step bundle-libraries 120 check_libraries
  step bundle-mpi-cpu-smoke 120 cli graph gcn 2 "" cpu
}

run_tests() {
  local test limit
  for test in "${gpu_tests[@]}"; do
    if [[ ! -x $here/bin/$test ]]; then
      record "$test" "MISSING from the bundle (not built): skipped"
      continue
    fi
    limit=180
    [[ $test == test_gpu_trainers ]] && limit=240
    step "$test" "$limit" gpu_test "$here/bin/$test" --durations yes
  done
}

# A GPU test binary; it fails when it skipped for want of a device the machine lists.
gpu_test() {
  local rc=0
  in_bundle "$@" || rc=$?
  if grep -q "no CUDA device answers" "$STEP_LOG"; then
    echo "gpu-check: it skipped (no CUDA device answers), yet $gpus GPUs are listed"
    return 1
  fi
  return $rc
}

# Every mode with gcn, gcnii and gat (2 heads, attention dropout: the attention kernels).
# NCCL needs a GPU per rank; on fewer GPUs the ranks share them and go through MPI (staged
# through pinned host memory).
run_cli() {
  local model mode ranks comm
  for model in gcn gcnii gat; do
    for mode in local graph pipeline hybrid; do
      case $mode in
        local) ranks=1 ;;
        hybrid) ranks=4 ;;
        *) ranks=$((gpus >= 4 ? 4 : 2)) ;;
      esac
      comm=mpi
      ((gpus >= ranks && ranks > 1)) && comm=nccl
      local extra=()
      [[ $mode == hybrid ]] && extra=(--parts 2 --stages 2)
      [[ $model == gat ]] && extra+=(--heads 2 --attention-dropout 0.3)
      step "cli-$mode-$model-$comm-np$ranks" 120 cli "$mode" "$model" "$ranks" "$comm" cuda \
        "${extra[@]}" && tail -1 "$logs/cli-$mode-$model-$comm-np$ranks.log" | sed 's/^/    /' |
        tee -a "$summary"
      # int8 rows (--compress) where rows travel: encoded and decoded by the CUDA kernels
      [[ $model == gcnii && $mode != local ]] || continue
      step "cli-$mode-$model-int8-$comm-np$ranks" 120 cli "$mode" "$model" "$ranks" "$comm" \
        cuda "${extra[@]}" --compress int8 &&
        tail -1 "$logs/cli-$mode-$model-int8-$comm-np$ranks.log" | sed 's/^/    /' |
        tee -a "$summary"
    done
  done
}

run_sanitizer() {
  local sanitizer test tool
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
  for test in "${sanitized_tests[@]}"; do
    for tool in memcheck initcheck; do
      if [[ -z $sanitizer ]]; then
        record "$tool-$test" "FAILED: compute-sanitizer not found (PATH, /usr/local/cuda)"
        failed=1
      elif [[ ! -x $here/bin/$test ]]; then
        record "$tool-$test" "MISSING from the bundle (not built): skipped"
      else
        step "$tool-$test" 180 in_bundle "$sanitizer" --tool "$tool" --error-exitcode 1 \
          "$here/bin/$test"
      fi
    done
  done
}

run_benchmarks() {
  local bench
  for bench in "${benchmarks[@]}"; do
    if [[ ! -x $here/bin/$bench ]]; then
      record "$bench" "MISSING from the bundle (not built): skipped"
      continue
    fi
    case $bench in
      bench_gpu) step "$bench" 120 in_bundle "$here/bin/$bench" 1048576 16 ;;
      bench_gpu_train) step "$bench" 180 in_bundle "$here/bin/$bench" 262144 2 64 ;;
      *) step "$bench" 120 in_bundle "$here/bin/$bench" ;;
    esac
  done
}

# What the steps' shells (bash -c) need.
export -f unpack in_bundle elf_files check_glibc check_libraries cli gpu_test
export bundle here

check_bundle
if ((gpus == 0)); then
  note "no GPU: no NVIDIA GPU on this machine (no nvidia-smi listing, no /dev/nvidia*)"
  ((failed)) && finish 1
  finish 2
fi
if command -v nvidia-smi >/dev/null; then
  step gpu-info 30 nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap \
    --format=csv && sed 's/^/    /' "$logs/gpu-info.log" | tee -a "$summary"
else
  record gpu-info "$gpus GPUs (/dev/nvidia*); no nvidia-smi to describe them"
fi
run_tests
run_cli
run_sanitizer
run_benchmarks
((failed)) && finish 1
finish 0
