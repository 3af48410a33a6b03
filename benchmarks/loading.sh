#!/usr/bin/env bash
# Loading coauthor_physics from the gzip CSV (OGB raw layout) against the binary cache
# (`strata convert`): wall time and peak resident memory of `strata info`, 3 runs each,
# alternating. Features stay sparse either way.
# Usage: benchmarks/loading.sh [--quick]   (--quick: 1 run each)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (default
# ../shared/datasets), STRATA_RESULTS (default benchmarks/results). Writes loading.csv;
# skips (exit 0) without coauthor_physics.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
data=$datasets/coauthor_physics
runs=3
[[ ${1:-} == --quick ]] && runs=1
if [[ ! -d $data ]]; then
  echo "loading: skipped ($data not found)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$strata" convert --dataset "$data" --out "$tmp/physics.strata" >/dev/null
python3 - "$strata" "$data" "$tmp/physics.strata" "$runs" "$results/loading.csv" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); strata info --dataset coauthor_physics (gzip CSV) or its cache; wall time and peak resident memory of the process" <<'EOF_PY'
import os, subprocess, sys, time
sys.path.insert(0, "benchmarks")
from bench_csv import write_csv
strata, gz, cache, runs, out, header = sys.argv[1:7]
rows = []
for run in range(int(runs)):
    for source, path in (("gzip", gz), ("cache", cache)):
        start = time.monotonic()
        p = subprocess.Popen([strata, "info", "--dataset", path], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        assert status == 0, f"strata info {path}: status {status}"
        rows.append({"source": source, "run": run, "wall_s": round(wall, 3),
                     "peak_mb": round(usage.ru_maxrss / 1024, 1)})
        print(rows[-1], file=sys.stderr)
write_csv(out, rows, header)
EOF_PY
