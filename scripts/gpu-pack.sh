#!/usr/bin/env bash
# gpu-pack.sh DIR: prepares a run of scripts/gpu-check.sh on a CUDA machine
# that has no Go toolchain and no network (the H200 device machine): every
# Go test binary, emily-repl, the bench and the C++ control program, built
# here (MLX's headers are the same in mlx-cpu and mlx-cuda-13, and the
# binaries find libmlx.so by an $ORIGIN rpath, so they run against the CUDA
# build there); this checkout's files; and the wheels scripts/install-mlx.sh
# installs offline there. The mlx-cuda-13 wheel (90 MB) is split in two:
# DIR/p1 holds its first part, DIR/p2 the rest and everything else, each
# under the device's 64 MiB limit per call.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$1"
version="${MLX_VERSION:-0.32.4}"
rm -rf "$out"
mkdir -p "$out/p1" "$out/p2/src/bin" "$out/p2/wheels"

git archive HEAD | tar -x -C "$out/p2/src"
bin="$out/p2/src/bin"
root="$(pwd)"
: >"$bin/tests.txt"
for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
  dir="$(go list -f '{{.Dir}}' "$pkg")"
  dir="${dir#"$root"}"
  name="$(echo "root$dir" | tr / _)"
  go test -c -o "$bin/$name.test" "$pkg"
  echo "$name .$dir" >>"$bin/tests.txt"
done
go build -o "$bin/emily-repl" ./cmd/emily-repl
go build -o "$bin/bench" ./bench
g++ -std=c++20 -O2 -I.deps/mlx/mlx/include bench/control/chain.cc -L.deps/mlx/mlx/lib -lmlx \
  -Wl,-rpath,'$ORIGIN/../.deps/mlx/mlx/lib' -o "$bin/chain"
gzip -9 "$bin"/*.test "$bin"/emily-repl "$bin"/bench "$bin"/chain

pipargs=(--quiet --no-deps --only-binary=:all: --platform manylinux_2_35_x86_64
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --implementation cp)
python3 -m pip download "${pipargs[@]}" --python-version 3.12 --dest "$out/p2/wheels" \
  "mlx==$version" "scipy-openblas32==${OPENBLAS_VERSION:-0.3.34.481.3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download "${pipargs[@]}" --dest "$tmp" "mlx-cuda-13==$version"
whl="$(basename "$tmp"/mlx_cuda_13-*.whl)"
split -b 60M "$tmp/$whl" "$tmp/part."
mv "$tmp/part.aa" "$out/p1/$whl.part.aa"
mv "$tmp"/part.a[b-z] "$out/p2/wheels/"
for p in "$out/p2/wheels"/part.*; do mv "$p" "$out/p2/wheels/$whl.${p##*/part.}"; done
du -sh "$out/p1" "$out/p2"
