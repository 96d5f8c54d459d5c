#!/usr/bin/env bash
# install-mlx.sh: puts MLX's official PyPI backend wheel (headers, libmlx.so)
# under .deps/mlx-<backend>/, where cgo in mlxbind/ builds against it, and
# points .deps/mlx at it. Idempotent: a stamp records what was installed;
# the link is re-pointed on every run, so switching backends works both ways.
#
# Backend (DESIGN.md decision 10): cuda-13 where an NVIDIA GPU with a CUDA 13
# driver is present, cpu elsewhere; MLX_BACKEND=cpu|cuda-13 overrides.
#
#   cuda-13  mlx-cuda-13 and the NVIDIA runtime wheels it requires (cuBLAS,
#            cuDNN, NCCL, ...), laid out as in site-packages, so libmlx.so's
#            own RPATH ($ORIGIN/../../nvidia/...) finds them: no
#            LD_LIBRARY_PATH. MLX_NVIDIA_DIR=/path/to/site-packages/nvidia
#            links CUDA 13 libraries already on the machine instead.
#   cpu      mlx-cpu. Its wheel bundles netlib's single-threaded reference
#            BLAS; we swap in OpenBLAS (scipy-openblas32 from PyPI) through
#            forwarding libraries (scripts/blas-shim.sh). MLX_BLAS=reference
#            keeps the bundled one.
#
# Offline: MLX_WHEELHOUSE=dir installs from wheels in dir (pip --no-index).
set -euo pipefail
cd "$(dirname "$0")/.."

version="${MLX_VERSION:-0.32.4}"
openblas="${OPENBLAS_VERSION:-0.3.34.481.3}"
python="${PYTHON:-python3}"

# detect_backend prints cuda-13 when an NVIDIA GPU with a driver new enough
# for CUDA 13 (580+) is visible, cpu otherwise.
detect_backend() {
  if command -v nvidia-smi >/dev/null 2>&1; then
    local drv
    drv="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    if [[ -n "$drv" ]]; then
      if (( ${drv%%.*} >= 580 )); then
        echo cuda-13
        return
      fi
      echo "install-mlx: NVIDIA driver $drv is older than CUDA 13 needs (580); using the CPU backend" >&2
    fi
  fi
  echo cpu
}

backend="${MLX_BACKEND:-$(detect_backend)}"
case "$backend" in
  cpu|cuda-13) ;;
  *) echo "install-mlx: MLX_BACKEND=$backend: use cpu or cuda-13" >&2; exit 2 ;;
esac
blas="${MLX_BLAS:-openblas}"
case "$blas" in
  openblas|reference) ;;
  *) echo "install-mlx: MLX_BLAS=$blas: use openblas or reference" >&2; exit 2 ;;
esac

dest=".deps/mlx-${backend}"
libs="$dest/mlx_${backend//-/_}.libs"
# The stamp names what the install depends on, the shim script included:
# changing any of it reinstalls.
shim_hash="$(sha1sum scripts/blas-shim.sh | cut -c1-8)"
stamp="$dest/.installed-${version}-${blas}-${shim_hash}${MLX_NVIDIA_DIR:+-linked}"

if [[ ! -f "$stamp" ]]; then
  pipargs=(--quiet --disable-pip-version-check --no-compile --only-binary=:all:
    --platform manylinux_2_35_x86_64 --platform manylinux_2_28_x86_64
    --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
    --platform manylinux2014_x86_64 --python-version 3.12 --implementation cp)
  if [[ -n "${MLX_WHEELHOUSE:-}" ]]; then
    pipargs+=(--no-index --find-links "$MLX_WHEELHOUSE")
  fi
  echo "install-mlx: installing mlx-${backend}==${version} (BLAS ${blas}) into ${dest}" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  if [[ "$backend" == cuda-13 && -z "${MLX_NVIDIA_DIR:-}" ]]; then
    # With its requirements: the NVIDIA runtime wheels land in $dest/nvidia.
    "$python" -m pip install --root-user-action=ignore "${pipargs[@]}" --target "$dest" "mlx-${backend}==${version}"
  else
    "$python" -m pip install --root-user-action=ignore "${pipargs[@]}" --no-deps --target "$dest" "mlx-${backend}==${version}"
  fi
  if [[ "$blas" == openblas ]]; then
    "$python" -m pip install --root-user-action=ignore "${pipargs[@]}" --no-deps --target "$dest/blas" "scipy-openblas32==${openblas}"
  fi
  test -f "$dest/mlx/lib/libmlx.so" || { echo "install-mlx: no libmlx.so in the wheel" >&2; exit 1; }
  if [[ -n "${MLX_NVIDIA_DIR:-}" && "$backend" == cuda-13 ]]; then
    test -d "$MLX_NVIDIA_DIR" || { echo "install-mlx: MLX_NVIDIA_DIR=$MLX_NVIDIA_DIR is not a directory" >&2; exit 1; }
    ln -sfn "$(cd "$MLX_NVIDIA_DIR" && pwd)" "$dest/nvidia"
  fi
  if [[ "$blas" == openblas ]]; then
    scripts/blas-shim.sh "$dest/mlx/lib/libmlx.so" "$libs" "$dest/blas/scipy_openblas32/lib"
  fi
  touch "$stamp"
  echo "install-mlx: MLX ${version} (${backend}, BLAS ${blas}) in ${dest}" >&2
fi

# mlxbind's cgo flags and rpath point at .deps/mlx; re-pointing the link
# switches the backend (binaries load whichever libmlx.so it points at).
if [[ "$(readlink .deps/mlx 2>/dev/null)" != "mlx-${backend}" ]]; then
  ln -sfn "mlx-${backend}" .deps/mlx
  echo "install-mlx: .deps/mlx -> mlx-${backend}" >&2
fi
