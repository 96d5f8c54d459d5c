#!/usr/bin/env bash
# setup-bench-venv.sh: the peers `make bench` runs beside Emily. .venv-bench
# holds NumPy; MLX's Python bindings (the `mlx` wheel, same version as
# .deps/mlx) are unpacked into the installed backend folder itself, so MLX
# Python runs on the very libmlx.so (and BLAS) Emily links: the bench then
# compares the bindings, not two builds. bench/peers.py puts .deps/mlx on
# sys.path. Idempotent (stamps); MLX_WHEELHOUSE=dir works offline.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${MLX_VERSION:-0.32.4}"
numpy="${NUMPY_VERSION:-2.4.6}"
venv=.venv-bench
python="${PYTHON:-python3}"
offline=()
if [[ -n "${MLX_WHEELHOUSE:-}" ]]; then
  offline=(--no-index --find-links "$MLX_WHEELHOUSE")
fi

if [[ ! -f "$venv/.numpy-$numpy" ]]; then
  echo "setup-bench-venv: NumPy $numpy into $venv" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ${offline[@]+"${offline[@]}"} "numpy==$numpy"
  touch "$venv/.numpy-$numpy"
fi

site="$(readlink -f .deps/mlx)"
tag="$("$venv/bin/python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
if [[ ! -f "$site/.python-$tag-$version" ]]; then
  echo "setup-bench-venv: MLX $version Python bindings ($tag) into $site" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: ${offline[@]+"${offline[@]}"} --dest "$tmp" "mlx==$version"
  # A wheel is a zip; unpacking merges mlx/core*.so beside mlx/lib/libmlx.so.
  "$venv/bin/python" -m zipfile -e "$tmp"/mlx-*.whl "$site"
  touch "$site/.python-$tag-$version"
fi
