#!/usr/bin/env bash
# `strata plan --probe-network` under mpirun writes what it measured, and `--network` plans
# with it; one rank, or a malformed file, is one line and exit status 2.
# Usage: plan_network.sh STRATA MPIRUN
set -euo pipefail
strata=$1
mpirun=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"
export XDG_CACHE_HOME=$tmp/cache

expect_ok "probe on 2 ranks" timeout 120 "$mpirun" -np 2 "$strata" plan --probe-network "$tmp/net.txt"
for key in link_bytes_per_s latency_s allreduce_bytes_per_s; do
  grep -Eq "^$key [0-9.e+-]+$" "$tmp/net.txt" ||
    { echo "FAIL no $key in the probe's file"; failures=$((failures + 1)); }
done
"$strata" plan --dataset synthetic --nodes 2000 --ranks 2 --layers 4 --network "$tmp/net.txt" \
  --json >"$tmp/plan.json"
python3 - "$tmp/plan.json" "$tmp/net.txt" <<'EOF_PY' || failures=$((failures + 1))
import json, sys
p = json.load(open(sys.argv[1]))
rate = float(next(l.split()[1] for l in open(sys.argv[2]) if l.startswith("link_bytes_per_s")))
assert abs(p["link_bytes_per_s"] - rate) <= 1e-5 * rate, (p["link_bytes_per_s"], rate)
print(f"ok   plan with the measured network: {rate * 8 / 1e9:.3g} Gbit/s")
EOF_PY
# Four ranks also time groups of two summing at once, as a 2 x 2 hybrid's stages do.
expect_ok "probe on 4 ranks" timeout 120 "$mpirun" -np 4 "$strata" plan --probe-network "$tmp/net4.txt"
grep -Eq "^allreduce_bytes_per_s_group_2 [0-9.e+-]+$" "$tmp/net4.txt" ||
  { echo "FAIL no group all-reduce rate in the 4-rank probe's file"; failures=$((failures + 1)); }
expect_ok "plan with group rates" "$strata" plan --dataset synthetic --nodes 2000 --ranks 4 \
  --layers 4 --network "$tmp/net4.txt"
expect_error "probe on one rank" "needs 2 or more ranks" plan --probe-network "$tmp/one.txt"
printf 'link_bytes_per_s 1e9\nlatency_s soon\n' >"$tmp/bad.txt"
expect_error "malformed network" "$tmp/bad.txt line 2" plan --dataset synthetic --nodes 2000 \
  --network "$tmp/bad.txt"
printf 'link_bytes_per_s 1e9\nlatency_s 1e-5\nallreduce_bytes_per_s 1e9\nallreduce_bytes_per_s_group_2 -1\n' >"$tmp/bad-group.txt"
expect_error "negative group rate" "$tmp/bad-group.txt line 4" plan --dataset synthetic \
  --nodes 2000 --network "$tmp/bad-group.txt"
expect_error "missing network" "cannot be read" plan --dataset synthetic --network "$tmp/none.txt"
[[ $failures -eq 0 ]]
