#!/usr/bin/env bash
# `strata plan` from the command line: the table and the best command line, JSON that
# parses with every layout, and one clear line with exit status 2 for what cannot be met.
# Usage: plan_cli.sh STRATA
set -euo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"
export XDG_CACHE_HOME=$tmp/cache  # the default rates cache, kept out of the user's
graph=(--dataset synthetic --nodes 2000)
rates=$tmp/rates.txt

expect_ok "table" "$strata" plan "${graph[@]}" --ranks 4 --model gcnii --layers 8 \
  --link 1Gbit --calibration "$rates"
grep -q "^best: mpirun -np 4 strata train --mode" "$tmp/out.txt" ||
  { echo "FAIL table: no best command line"; failures=$((failures + 1)); }
grep -q "^sparse_s " "$rates" || { echo "FAIL rates were not written"; failures=$((failures + 1)); }

"$strata" plan "${graph[@]}" --ranks 2 --layers 4 --link 10Gbit --calibration "$rates" --json \
  >"$tmp/plan.json"
python3 - "$tmp/plan.json" "$rates" <<'EOF_PY' || failures=$((failures + 1))
import json, sys
p = json.load(open(sys.argv[1]))
layouts = p["layouts"]
assert p["rates"]["source"] == sys.argv[2], p["rates"]
assert len(layouts) == 3 * (1 + 7), len(layouts)
assert [l["epoch_s"] for l in layouts] == sorted(l["epoch_s"] for l in layouts)
best = layouts[p["best"]]
assert best["allowed"] and best["fits"], best
print("ok   json: %d layouts, best %s %dx%d, %.4f s" % (len(layouts), best["mode"], best["stages"],
                                                      best["parts"], best["epoch_s"]))
EOF_PY

# Without --calibration the rates are cached per dataset, width and threads and read back;
# a cache an older build wrote (a key missing) is measured again, not an error.
"$strata" plan "${graph[@]}" --ranks 2 --layers 2 --json >/dev/null
cache=$XDG_CACHE_HOME/strata/rates-synthetic-2000-h64-t1-cpu.txt
[[ -f $cache ]] || { echo "FAIL no rates cache at $cache"; failures=$((failures + 1)); }
sed -i '/^wire_byte_s/d' "$cache"
"$strata" plan "${graph[@]}" --ranks 2 --layers 2 --json | grep -q '"source": "measured"' ||
  { echo "FAIL an outdated cache was not measured again"; failures=$((failures + 1)); }
"$strata" plan "${graph[@]}" --ranks 2 --layers 2 --json | grep -q "\"source\": \"$cache\"" ||
  { echo "FAIL the cache was not read back"; failures=$((failures + 1)); }

expect_error "more stages than layers" "--stages 4 is more stages than the 2 layers" \
  plan "${graph[@]}" --ranks 4 --layers 2 --stages 4
expect_error "nothing fits" "no layout of 4 ranks fits --memory-per-rank 1.0 MB" \
  plan "${graph[@]}" --ranks 4 --layers 4 --memory-per-rank 1MB
expect_error "bad link" "--link must be a rate such as 10Gbit" plan "${graph[@]}" --link fast
expect_error "bad latency" "--latency must be a duration" plan "${graph[@]}" --latency soon
expect_error "bad allow" "--allow takes stale, drop, lossy or none" plan "${graph[@]}" --allow all
expect_error "bad format" "--compress" plan "${graph[@]}" --compress int4
expect_error "simulate without vertices" "--simulate needs --nodes above 0" \
  plan --simulate --nodes 0
printf 'sparse_s 1e-10\nbogus 3\n' >"$tmp/bad.txt"
expect_error "bad calibration" "$tmp/bad.txt line 2" plan "${graph[@]}" --calibration "$tmp/bad.txt"
[[ $failures -eq 0 ]]
