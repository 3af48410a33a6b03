# Shared by the CLI test scripts: source it after setting $strata and $tmp. Safe under
# set -e: a failing case is counted in $failures, and the script ends with
# `[[ $failures -eq 0 ]]`.
failures=0

expect_error() {  # expect_error NAME PATTERN ARGS...: status 2, one line containing PATTERN
  local name=$1 pattern=$2
  shift 2
  local err status=0 lines
  err=$("$strata" "$@" 2>&1 >/dev/null) || status=$?
  lines=$(printf '%s\n' "$err" | grep -c . || true)
  if [[ $status -ne 2 || $lines -ne 1 || "$err" != *"$pattern"* ]]; then
    echo "FAIL $name: status $status, $lines lines: $err"
    failures=$((failures + 1))
  else
    echo "ok   $name: $err"
  fi
}

expect_ok() {  # expect_ok NAME COMMAND...: the command must succeed
  local name=$1
  shift
  if "$@" >"$tmp/out.txt" 2>&1; then
    echo "ok   $name"
  else
    echo "FAIL $name: $(tail -n 3 "$tmp/out.txt")"
    failures=$((failures + 1))
  fi
}
