#!/usr/bin/env bash
# Downloads the public sources of the datasets the README uses and converts them into the
# OGB raw layout Strata reads: DIR/cora, citeseer, amazon_computers, coauthor_cs,
# coauthor_physics, tolokers (about 16 MiB; the sources are about 20 MiB).
#
#   scripts/get-datasets.sh DIR [NAME...]     (default: every dataset)
#
# Sources, pinned to a commit and checked against their git blob ids: Planetoid's Cora and
# CiteSeer (kimiyoung/planetoid), gnn-benchmark's Amazon Computers, Coauthor CS and Physics
# npz files (as zipped in CrawlScript/gnn_datasets), Tolokers (yandex-research/
# heterophilous-graphs), from raw.githubusercontent.com. STRATA_DATASET_SOURCES=SRC reads
# SRC/OWNER/REPO/COMMIT/PATH instead (offline). Needs python3 with numpy and scipy
# (Debian: apt-get install python3-numpy python3-scipy). A dataset already in DIR is kept.
# scripts/get_datasets.py says how each is converted; with these sources the result equals,
# file for file, the copies the README's results were measured on.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: scripts/get-datasets.sh DIR [NAME...]}
shift
python=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy, scipy' 2>/dev/null; then python=$p; break; fi
done
[[ -n $python ]] || { echo "get-datasets: needs python3 with numpy and scipy (apt-get install python3-numpy python3-scipy)" >&2; exit 2; }
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(cora citeseer amazon_computers coauthor_cs coauthor_physics tolokers)
todo=()
for n in "${names[@]}"; do
  if [[ -f $out/$n/raw/edge.csv.gz ]]; then echo "$n: already in $out"; else todo+=("$n"); fi
done
[[ ${#todo[@]} -gt 0 ]] || exit 0
sources=${STRATA_DATASET_SOURCES:-$out/.sources}
while read -r file; do
  [[ -f $sources/$file ]] && continue
  [[ -z ${STRATA_DATASET_SOURCES:-} ]] || { echo "get-datasets: $sources/$file not found" >&2; exit 1; }
  mkdir -p "$(dirname "$sources/$file")"
  echo "downloading $file"
  curl -fsSL --retry 3 -o "$sources/$file.part" "https://raw.githubusercontent.com/$file"
  mv "$sources/$file.part" "$sources/$file"
done < <("$python" "$here/get_datasets.py" --list "${todo[@]}")
"$python" "$here/get_datasets.py" "$sources" "$out" "${todo[@]}"
