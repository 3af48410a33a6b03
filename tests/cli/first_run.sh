#!/usr/bin/env bash
# The first minute at the command line: `strata` alone prints the help, `strata --version`
# the version and the build's options; `train --help` shows the defaults.
set -euo pipefail
strata=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$strata") || fail "strata with no arguments exited $?"
grep -q "^Subcommands:" <<<"$out" || fail "strata alone did not print the help: $out"
grep -q "comm-volume" <<<"$out" || fail "the help does not list comm-volume"

version=$("$strata" --version) || fail "strata --version exited $?"
grep -Eq "^strata [0-9]+\.[0-9]+\.[0-9]+ " <<<"$version" || fail "no version line: $version"
for option in "CUDA backend: (yes|no)" "NCCL: (yes|no)" "MPI: .+"; do
  grep -Eq "^$option$" <<<"$version" || fail "--version lacks '$option': $version"
done

help=$("$strata" train --help) || fail "train --help exited $?"
grep -Eq -- "--layers INT=2 " <<<"$help" || fail "train --help does not show --layers' default"

if "$strata" no-such-command 2>/dev/null; then fail "an unknown subcommand exited 0"; fi
echo "first run: help, version and defaults as documented"
