#!/usr/bin/env bash
# `strata train` on the built-in synthetic graph (4,096 vertices, 8 classes: chance is
# 12.5%): 20 epochs, one line each, a falling loss, and a final test accuracy well above
# chance (seed 0 reaches 47.8%), also in the metrics file.
# Usage: synthetic_demo.sh STRATA
set -euo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$strata" train --dataset synthetic --epochs 20 --hidden 32 --metrics "$tmp/m.jsonl" >"$tmp/out.txt"
cat "$tmp/out.txt"
python3 - "$tmp/out.txt" "$tmp/m.jsonl" <<'EOF_PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
epochs = [l for l in lines if l.startswith("epoch ")]
assert len(epochs) == 20, f"{len(epochs)} epoch lines, expected 20"
loss = [float(re.search(r"loss (\S+)", l).group(1)) for l in epochs]
assert loss[-1] < loss[0] - 0.02, f"the loss did not fall: {loss[0]} -> {loss[-1]}"
final = [l for l in lines if l.startswith("final: test accuracy ")]
assert len(final) == 1, "no final line"
acc = float(final[0].split()[3])
assert acc >= 0.35, f"test accuracy {acc} < 0.35 (chance 0.125)"
records = [json.loads(l) for l in open(sys.argv[2])]
assert [r["event"] for r in records] == ["epoch"] * 20 + ["final"], "metrics: 20 epochs and a final"
assert abs(records[-1]["test_acc"] - acc) < 1e-4, "metrics and output disagree"
print(f"ok: loss {loss[0]} -> {loss[-1]}, test accuracy {acc}")
EOF_PY
