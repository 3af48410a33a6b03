#!/usr/bin/env bash
# `strata convert --order rcm`: the cache holds the same graph, features, labels and splits
# (`strata info` prints the same statistics) under new numbers, and trains.
set -euo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$strata" convert --dataset synthetic --nodes 3000 --out "$tmp/as-loaded.strata" >/dev/null
"$strata" convert --dataset synthetic --nodes 3000 --order rcm --out "$tmp/rcm.strata" >/dev/null
"$strata" info --dataset "$tmp/as-loaded.strata" | tail -n +2 >"$tmp/a.txt"
"$strata" info --dataset "$tmp/rcm.strata" | tail -n +2 >"$tmp/b.txt"
diff "$tmp/a.txt" "$tmp/b.txt"
cmp -s "$tmp/as-loaded.strata" "$tmp/rcm.strata" && { echo "FAIL: rcm wrote the same file"; exit 1; }
"$strata" train --mode local --dataset "$tmp/rcm.strata" --epochs 30 --metrics "$tmp/m.jsonl" \
  | tail -n 2
echo "ok: same statistics, renumbered, trains"
