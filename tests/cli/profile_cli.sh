#!/usr/bin/env bash
# `strata train --profile`: the table printed at the end, the metrics file's profile line,
# the roofline measured into --roofline FILE and read back, and a malformed roofline file
# as one line and exit status 2 before any training.
# Usage: profile_cli.sh STRATA
set -euo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"

train=(train --mode local --dataset synthetic --nodes 600 --model gcnii --layers 3 --hidden 8
  --epochs 3 --threads 1)
expect_ok "profiled run" "$strata" "${train[@]}" --profile --roofline "$tmp/roofline.txt" \
  --metrics "$tmp/m.jsonl"
for pattern in "^profile, per epoch over 2 epochs" "^spmm " "^gemm " "^optimizer " \
  "^communication wait" "^epoch .*x$" "^roofline \(measured\): stream"; do
  grep -Eq "$pattern" "$tmp/out.txt" ||
    { echo "FAIL no line matching '$pattern' in the output"; failures=$((failures + 1)); }
done
python3 - "$tmp/m.jsonl" <<'EOF_PY' || failures=$((failures + 1))
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
p = next(l for l in lines if l["event"] == "profile")
assert lines[-1]["event"] == "final", lines[-1]
ops = {o["op"]: o for o in p["ops"]}
assert {"spmm", "gemm", "weight_gradient", "optimizer"} <= set(ops), sorted(ops)
assert p["floor_s"] > 0 and p["epoch_s"] > 0, p
assert abs(sum(o["floor_s"] for o in p["ops"]) - p["floor_s"]) <= 1e-9 * p["floor_s"]
assert len(p["roofline"]["stream"]) == 5, p["roofline"]
print(f"ok   profile line: {len(ops)} operations, epoch {p['epoch_s']:.4f} s, floor {p['floor_s']:.4f} s")
EOF_PY
grep -q "^stream_512MiB_bytes_per_s " "$tmp/roofline.txt" ||
  { echo "FAIL the roofline was not written"; failures=$((failures + 1)); }
expect_ok "roofline read back" "$strata" "${train[@]}" --profile --roofline "$tmp/roofline.txt"
grep -q "^roofline ($tmp/roofline.txt)" "$tmp/out.txt" ||
  { echo "FAIL the roofline file was not read back"; failures=$((failures + 1)); }
printf 'stream_1MiB_bytes_per_s 1e11\ngather_bytes_per_s -5\n' >"$tmp/bad.txt"
expect_error "malformed roofline" "$tmp/bad.txt line 2" "${train[@]}" --profile --roofline "$tmp/bad.txt"
[[ $failures -eq 0 ]]
