#!/usr/bin/env bash
# `strata partition` and `strata comm-volume`: files round trip, shards are written, and
# bad input gets one line and status 2. Every run's exit status counts (set -e, and
# expect_ok / expect_error count failures).
set -euo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"
graph=(--dataset synthetic --nodes 500)

# json_int FILE KEY: the integer KEY of a JSON report; fails when it is missing.
json_int() {
  python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; assert isinstance(v, int); print(v)' "$1" "$2"
}

expect_ok "partition writes a gpmetis file" "$strata" partition "${graph[@]}" --parts 3 --out "$tmp/p.txt"
expect_ok "gpmetis file has one line per vertex" test "$(wc -l <"$tmp/p.txt")" -eq 500
expect_ok "gpmetis file holds the parts 0, 1 and 2" \
  test "$(sort -u "$tmp/p.txt" | tr '\n' ' ')" = "0 1 2 "
"$strata" partition "${graph[@]}" --parts 3 --json >"$tmp/a.json"
"$strata" partition "${graph[@]}" --parts 3 --in "$tmp/p.txt" --json >"$tmp/b.json"
cut_a=$(json_int "$tmp/a.json" edge_cut)
cut_b=$(json_int "$tmp/b.json" edge_cut)
expect_ok "the partition cuts edges ($cut_a)" test "$cut_a" -gt 0
expect_ok "reading the file back reports the same cut ($cut_a, $cut_b)" test "$cut_a" -eq "$cut_b"
expect_ok "shards are written" "$strata" partition "${graph[@]}" --parts 2 --shards "$tmp/shards"
expect_ok "one shard per part" test -s "$tmp/shards/part-0-of-2.shard" -a -s "$tmp/shards/part-1-of-2.shard"
expect_ok "chunking report" "$strata" partition "${graph[@]}" --parts 2 --chunks 4 --chunking rcm
expect_ok "comm-volume sweep" "$strata" comm-volume "${graph[@]}" --parts 4 --layers 2,4 --method metis,random
"$strata" comm-volume "${graph[@]}" --parts 2 --layers 3 --json >"$tmp/v.json"
expect_ok "comm-volume json has exact bytes" grep -q '"halo_fwd": *[1-9]' "$tmp/v.json"

printf '0\n1\n' >"$tmp/short.txt"
expect_error "partition file too short" "short.txt" partition "${graph[@]}" --parts 2 --in "$tmp/short.txt"
awk 'BEGIN { for (i = 0; i < 499; ++i) print 0; print 7 }' >"$tmp/range.txt"
expect_error "part id out of range" "range.txt:500" partition "${graph[@]}" --parts 2 --in "$tmp/range.txt"
awk 'BEGIN { for (i = 0; i < 499; ++i) print 0; print "x" }' >"$tmp/word.txt"
expect_error "non-integer part id" "word.txt:500" partition "${graph[@]}" --parts 2 --in "$tmp/word.txt"
expect_error "unknown method" "metis" partition "${graph[@]}" --method kahip
expect_error "unknown objective" "--objective" partition "${graph[@]}" --objective speed
expect_error "zero parts" "parts" partition "${graph[@]}" --parts 0
expect_error "comm-volume zero parts" "--parts" comm-volume "${graph[@]}" --parts 0
expect_error "comm-volume bad layers" "--layers" comm-volume "${graph[@]}" --layers 2,x
expect_error "comm-volume unknown method" "metis" comm-volume "${graph[@]}" --method foo
expect_error "shards into a file" "shard" partition "${graph[@]}" --parts 2 --shards "$tmp/p.txt"

echo "$failures failures"
[[ $failures -eq 0 ]]
