#!/usr/bin/env bash
# Installs the Debian packages Strata builds and tests with. Idempotent: installs only
# what is missing and prints nothing when everything is present.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config
  libmetis-dev libopenmpi-dev openmpi-bin
  libopenblas-openmp-dev
  libboost-graph-dev catch2 libcli11-dev nlohmann-json3-dev zlib1g-dev
  libbenchmark-dev
  iproute2  # scripts/cluster.sh: ip netns, veth, tc
)
if [[ "${STRATA_WITH_TOOLS:-0}" == 1 ]]; then
  packages+=(clang libclang-rt-14-dev clang-format gnuplot-nox)
fi
# benchmarks/run.sh: plots, the summary scripts, peak memory of the PyG peer, its venv.
if [[ "${STRATA_WITH_BENCH:-0}" == 1 ]]; then
  packages+=(gnuplot-nox python3 python3-venv time)
fi
# `make fuzz`: clang, its libFuzzer and sanitizer runtimes (libclang-rt-14-dev holds
# libclang_rt.fuzzer) and the OpenMP runtime clang links against.
if [[ "${STRATA_WITH_FUZZ:-0}" == 1 ]]; then
  packages+=(clang libclang-rt-14-dev libomp-dev)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages ${missing[*]}; run as root or install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
