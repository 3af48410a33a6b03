#!/usr/bin/env bash
# The README's communication-volume table: what `strata comm-volume` predicts for
# coauthor_physics on 4 ranks, hidden 256, 2 to 32 layers, METIS and random parts, every
# mode (graph 1 x 4, pipeline min(4, L) x 1, hybrid 2 x 2), in bytes per training epoch.
# Usage: benchmarks/comm_table.sh [--quick]   (a few seconds either way; --quick is the same)
# Environment: STRATA_BUILD (default build-bench), STRATA_DATASETS (default
# ../shared/datasets), STRATA_RESULTS (default benchmarks/results). Skips (exit 0) without
# coauthor_physics.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/machine.sh
bench_paths
data=$datasets/coauthor_physics
if [[ ! -d $data ]]; then
  echo "comm_table: skipped ($data not found)"
  exit 0
fi
json=$(mktemp)
trap 'rm -f "$json"' EXIT
# The command the README documents, with --json for exact bytes.
"$strata" comm-volume --dataset "$data" --parts 4 --layers 2,8,16,32 --hidden 256 \
  --method metis,random --json >"$json"
python3 - "$json" "$results/comm_table.csv" \
  "machine: $(machine_line); commit $(git rev-parse --short HEAD); $(date -u +%FT%TZ); strata comm-volume --dataset coauthor_physics --parts 4 --layers 2,8,16,32 --hidden 256 --method metis,random; bytes per training epoch summed over ranks" <<'EOF_PY'
import json, sys
sys.path.insert(0, "benchmarks")
from bench_csv import write_csv
rows = json.load(open(sys.argv[1]))["rows"]
keys = ["method", "layers", "mode", "stages", "parts", "halo_fwd", "halo_bwd", "stage_fwd",
        "stage_bwd", "allreduce", "training", "eval"]
write_csv(sys.argv[2], [{k: r[k] for k in keys} for r in rows], sys.argv[3])
EOF_PY
