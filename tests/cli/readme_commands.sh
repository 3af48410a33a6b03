#!/usr/bin/env bash
# The README's commands, as a reader would paste them, in a fresh directory laid out as the
# README assumes (build/bin/strata, data/, scripts/), after the README's environment
# block:
#   --own-graph  runs the "Your own graph" block verbatim: it must make mygraph/ and train it
#                on 4 ranks (graph mode from the dataset and from shards, and a pipeline).
#   --all        runs every command of every sh block in order (the own-graph block first),
#                with `strata train` cut to 2 epochs. Skipped, and said so: `make`, the
#                dataset download, commands on a dataset that is absent, `--device cuda`
#                without a GPU, and scripts/cluster.sh where network namespaces are refused.
# Usage: readme_commands.sh --own-graph|--all STRATA SOURCE_DIR
# Environment: STRATA_DATASETS (default SOURCE_DIR/../shared/datasets), the real datasets.
set -euo pipefail
mode=$1
strata=$(realpath "$2")
src=$(realpath "$3")
datasets=$(realpath -m "${STRATA_DATASETS:-$src/../shared/datasets}")
readme=$src/README.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/bin"
ln -s "$strata" "$work/build/bin/strata"
ln -s "$src/scripts" "$work/scripts"
[[ -d $datasets ]] && ln -s "$datasets" "$work/data"
cd "$work"

# block MARKER: the lines between <!-- readme:MARKER --> and its end tag, without fences.
block() {
  sed -n "/^<!-- readme:$1 -->\$/,/^<!-- \/readme:$1 -->\$/p" "$readme" | sed '1d;$d' | grep -v '^```'
}
environment=$(block environment)
[[ -n $environment ]] || { echo "FAIL: no environment block in $readme"; exit 1; }
own_graph=$(block own-graph)
[[ -n $own_graph ]] || { echo "FAIL: no own-graph block in $readme"; exit 1; }

if [[ $mode == --own-graph ]]; then
  status=0
  out=$(bash -euo pipefail -c "$environment
$own_graph" 2>&1) || status=$?
  if [[ $status -ne 0 ]]; then
    echo "$out" | tail -n 20
    echo "FAIL: the own-graph block exited with status $status"
    exit 1
  fi
  echo "$out" | grep -E '^(threads|dataset|final|vertices|split|classes)'
  finals=$(grep -c '^final: test accuracy' <<<"$out" || true)
  [[ $finals -eq 3 ]] || { echo "FAIL: $finals trainings finished, expected 3"; exit 1; }
  grep -q 'threads: .* shared by 4 ranks' <<<"$out" || { echo "FAIL: not 4 ranks"; exit 1; }
  echo "ok   mygraph/ made from the README trains on 4 ranks (3 runs)"
  exit 0
fi
[[ $mode == --all ]] || { echo "usage: readme_commands.sh --own-graph|--all STRATA SOURCE_DIR"; exit 2; }

# Every command of the sh blocks but the environment and own-graph ones (run as blocks),
# continuation lines joined, one per line, in order.
commands() {
  awk '/^<!-- readme:/ { tagged = 1 } /^<!-- \/readme:/ { tagged = 0 }
       /^```sh$/ { inside = !tagged; next } /^```$/ { inside = 0; next }
       inside { line = line $0; if (line ~ /\\$/) { sub(/\\$/, "", line); next } print line; line = "" }' \
    "$readme"
}
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
ok=0 skipped=0 failed=0 mpiruns=0
missing=()
run() { # run COMMAND: runs it after the README's environment, counts the outcome
  local command=$1 status=0 out
  out=$(bash -euo pipefail -c "$environment
$command" 2>&1 </dev/null) || status=$?
  if [[ $status -eq 0 ]]; then
    ok=$((ok + 1))
    echo "ok   $command"
  elif [[ $command == scripts/cluster.sh* ]] &&
    grep -qE 'must run as root|needs CAP_|cannot create network namespace' <<<"$out"; then
    skipped=$((skipped + 1))
    echo "skip $command: $(tail -n 1 <<<"$out")"
  else
    failed=$((failed + 1))
    echo "FAIL $command: status $status"
    tail -n 8 <<<"$out" | sed 's/^/       /'
  fi
}
bash -euo pipefail -c "$environment
$own_graph" >/dev/null 2>&1 && ok=$((ok + 1)) || { echo "FAIL: the own-graph block"; failed=$((failed + 1)); }
while IFS= read -r command; do
  command=$(sed 's/^ *//; s/  */ /g' <<<"$command")
  [[ -z $command || $command == \#* ]] && continue
  case $command in
    make* | export* | scripts/get-datasets.sh* | "scripts/cluster.sh selftest"*)
      echo "skip $command: not a command this check runs"
      skipped=$((skipped + 1))
      continue
      ;;
  esac
  if [[ $command == *'$STRATA_DATASETS'* && ! -d $datasets ]]; then
    echo "skip $command: the datasets are absent ($datasets)"
    skipped=$((skipped + 1))
    # what it would have written (a cache, shards): later commands that read it skip too
    missing+=($(grep -oE -- '--(out|shards) [^ ]+' <<<"$command" | cut -d' ' -f2 || true))
    continue
  fi
  needs=
  for file in "${missing[@]}"; do [[ " $command " == *" $file "* ]] && needs=$file; done
  if [[ -n $needs ]]; then
    echo "skip $command: needs $needs, which a skipped command writes"
    skipped=$((skipped + 1))
    continue
  fi
  # `strata plan --device cuda` only predicts: it needs no GPU
  if [[ $command == *'--device cuda'* && $command != *"strata plan"* && $gpu -eq 0 ]]; then
    echo "skip $command: no GPU"
    skipped=$((skipped + 1))
    continue
  fi
  [[ $command == *mpirun* ]] && mpiruns=$((mpiruns + 1))
  if [[ $command == *"strata train"* ]]; then # 2 epochs: the command, not the training, is checked
    if [[ $command == *--epochs* ]]; then
      command=$(sed -E 's/--epochs [0-9]+/--epochs 2/' <<<"$command")
    else
      command="$command --epochs 2"
    fi
  fi
  run "$command"
done < <(commands)
echo "$ok ran, $skipped skipped, $failed failed ($mpiruns mpirun commands attempted, and the own-graph block)"
[[ $failed -eq 0 ]]
