#!/usr/bin/env bash
# Creates benchmarks/pyg/venv with CPU PyTorch and PyTorch Geometric (pure Python: no
# torch_scatter / torch_sparse). Only for the PyG comparison benchmark; Strata never
# depends on it. Idempotent. Exit status: 0 ready, 3 skipped (PyPI unreachable), else error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$here/venv
py=$venv/bin/python

if [[ -x $py ]] && "$py" -c 'import torch, torch_geometric, numpy' 2>/dev/null; then
  exit 0
fi
reachable() {  # URL: answers within 15 s
  python3 - "$1" <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=15)
except Exception:
    sys.exit(1)
PY
}
if ! reachable https://pypi.org/simple/pip/; then
  echo "skipped: PyPI unreachable"
  exit 3
fi
if ! python3 -c 'import ensurepip' 2>/dev/null; then
  apt-get install -y python3-venv >/dev/null
fi
[[ -x $py ]] || python3 -m venv "$venv"
pip=("$py" -m pip install --quiet --disable-pip-version-check)
# The CPU-only wheel is far smaller; PyPI's default torch wheel works too (CUDA unused).
if reachable https://download.pytorch.org/whl/cpu/torch/; then
  "${pip[@]}" torch --index-url https://download.pytorch.org/whl/cpu
else
  echo "setup: download.pytorch.org unreachable, installing torch from PyPI"
  "${pip[@]}" torch
fi
"${pip[@]}" torch_geometric numpy
"$py" -c 'import torch, torch_geometric; print("setup: torch", torch.__version__,
          "torch_geometric", torch_geometric.__version__)'
