#!/usr/bin/env bash
# install-mlx.sh: puts MLX's official PyPI backend wheel (headers, libmlx.so,
# its bundled BLAS/LAPACK) under .deps/mlx-<backend>/, where cgo in mlxbind/
# builds against it. Idempotent: a stamp file records the installed version.
#
#   scripts/install-mlx.sh            # mlx-cpu (default)
#   MLX_BACKEND=cuda-13 scripts/install-mlx.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version="${MLX_VERSION:-0.32.4}"
backend="${MLX_BACKEND:-cpu}"
dest=".deps/mlx-${backend}"
stamp="${dest}/.installed-${version}"

if [[ -f "$stamp" ]]; then
  exit 0
fi

python="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "install-mlx: fetching mlx-${backend}==${version} from PyPI" >&2
"$python" -m pip download --quiet --no-deps --only-binary=:all: \
  --platform manylinux_2_35_x86_64 --dest "$tmp" "mlx-${backend}==${version}"
rm -rf "$dest"
mkdir -p "$dest"
# A wheel is a zip file; unpack it with Python so no unzip binary is needed.
"$python" -m zipfile -e "$tmp"/*.whl "$dest"
test -f "$dest/mlx/lib/libmlx.so" || { echo "install-mlx: no libmlx.so in wheel" >&2; exit 1; }
# mlxbind's cgo flags point at .deps/mlx; the link lets a backend be swapped.
ln -sfn "mlx-${backend}" .deps/mlx
touch "$stamp"
echo "install-mlx: MLX ${version} (${backend}) in ${dest}" >&2
