#!/usr/bin/env bash
# Lines of C++ and CUDA (.cpp, .h, .cu, .cuh; every line) per folder of one commit,
# tests not counted: the README's layout table.
# Usage: benchmarks/lines.sh [--quick] [REV]   (REV default HEAD; --quick is the same)
# Environment: STRATA_RESULTS (default benchmarks/results). Writes lines.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${1:-} == --quick ]] && shift
rev=$(git rev-parse --short "${1:-HEAD}")
results=${STRATA_RESULTS:-benchmarks/results}
mkdir -p "$results"
folders=(core graph datasets partition kernels layers comm shards plan store training "facade include" cli)
count() { # the lines of every C++ file under the folders, at $rev
  git ls-tree -r --name-only "$rev" -- "$@" | grep -E '\.(cpp|h|cu|cuh)$' |
    while read -r f; do git show "$rev:$f"; done | wc -l
}
{
  echo "# commit $rev; $(git show -s --format=%cs "$rev"); lines of .cpp, .h, .cu and .cuh files per folder, tests not counted"
  echo "folder,lines"
  for f in "${folders[@]}"; do echo "${f// /+},$(count $f)"; done
} >"$results/lines.csv"
cat "$results/lines.csv"
