#!/bin/bash
# Every header the CLI includes is its own (cli/) or public (include/strata/).
# usage: cli_public_only.sh SOURCE_DIR
set -euo pipefail
src=$1
status=0
while IFS=: read -r file line include; do
  header=$(echo "$include" | sed -E 's/^#include ["<]([^">]+)[">].*/\1/')
  case "$header" in
    strata/*) [ -f "$src/include/$header" ] || { echo "$file:$line: $header is not public"; status=1; } ;;
    *.h) [ -f "$src/cli/$header" ] || { echo "$file:$line: $header is not the CLI's"; status=1; } ;;
  esac
done < <(grep -n '^#include' "$src"/cli/*.cpp "$src"/cli/*.h)
[ $status -eq 0 ] && echo "cli includes only include/strata/ and its own headers"
exit $status
