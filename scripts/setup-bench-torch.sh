#!/usr/bin/env bash
# setup-bench-torch.sh: PyTorch for `make bench-train`'s PyTorch column
# (bench/train/torch_peer.py), in a venv of its own, .venv-torch: torch is
# a benchmark peer only, never a test dependency (tests/requirements.txt
# does not name it). On Linux x86_64 PyPI's torch wheel also pulls the
# CUDA runtime wheels (a few GB); they are unused on a CPU-only machine
# and harmless. torch.compile needs a C compiler (its CPU backend,
# Inductor, writes C++); bench/train falls back to eager and says so when
# compilation fails. On the H200 pack (scripts/gpu-check.sh) none of this
# runs: the machine's own torch is used. Idempotent (stamp).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
torch="${TORCH_VERSION:-2.15.0}"
numpy="${NUMPY_VERSION:-2.4.6}"
venv=.venv-torch

if [[ ! -f "$venv/.torch-$torch" ]]; then
  echo "setup-bench-torch: torch $torch into $venv (a large download, once)" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$torch" "numpy==$numpy"
  touch "$venv/.torch-$torch"
fi
