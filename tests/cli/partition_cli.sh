#!/usr/bin/env bash
# `strata partition` and `strata comm-volume`: files round trip, shards are written, and
# bad input gets one line and status 2.
set -uo pipefail
strata=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/expect.sh"
graph=(--dataset synthetic --nodes 500)

expect_ok "partition writes a gpmetis file" "$strata" partition "${graph[@]}" --parts 3 --out "$tmp/p.txt"
expect_ok "gpmetis file has one line per vertex" test "$(wc -l <"$tmp/p.txt")" -eq 500
"$strata" partition "${graph[@]}" --parts 3 --json >"$tmp/a.json"
"$strata" partition "${graph[@]}" --parts 3 --in "$tmp/p.txt" --json >"$tmp/b.json"
expect_ok "reading the file back reports the same cut" \
  test "$(grep edge_cut "$tmp/a.json")" = "$(grep edge_cut "$tmp/b.json")"
expect_ok "shards are written" "$strata" partition "${graph[@]}" --parts 2 --shards "$tmp/shards"
expect_ok "one shard per part" test -f "$tmp/shards/part-1-of-2.shard"
expect_ok "chunking report" "$strata" partition "${graph[@]}" --parts 2 --chunks 4 --chunking rcm
expect_ok "comm-volume sweep" "$strata" comm-volume "${graph[@]}" --parts 4 --layers 2,4 --method metis,random
expect_ok "comm-volume json has exact bytes" bash -c \
  "'$strata' comm-volume ${graph[*]} --parts 2 --layers 3 --json | grep -q '\"halo_fwd\"'"

printf '0\n1\n' >"$tmp/short.txt"
expect_error "partition file too short" "short.txt" partition "${graph[@]}" --parts 2 --in "$tmp/short.txt"
{ yes 0 | head -n 499; echo 7; } >"$tmp/range.txt"
expect_error "part id out of range" "range.txt:500" partition "${graph[@]}" --parts 2 --in "$tmp/range.txt"
{ yes 0 | head -n 499; echo x; } >"$tmp/word.txt"
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
