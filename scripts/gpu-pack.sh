#!/usr/bin/env bash
# gpu-pack.sh DIR: prepares a run of scripts/gpu-check.sh on a CUDA machine
# that has no Go toolchain and no network (the H200 device machine): every
# Go test binary, emily-repl, the bench and the C++ control program, built
# here (MLX's headers are the same in mlx-cpu and mlx-cuda-13, and the
# binaries find libmlx.so by an $ORIGIN rpath, so they run against the CUDA
# build there); this checkout's committed files; and the wheels
# scripts/install-mlx.sh installs offline there. All of it is one tar
# (~170 MB, the mlx-cuda-13 wheel alone is 90 MB) cut into DIR/p1, p2, ...,
# each under the device machine's 64 MiB carry limit: one call per part,
# back to back, the last one unpacking and running (see gpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$1"
version="${MLX_VERSION:-0.32.4}"
rm -rf "$out"
mkdir -p "$out"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/pack/src/bin" "$stage/pack/wheels"

git archive HEAD | tar -x -C "$stage/pack/src"
bin="$stage/pack/src/bin"
root="$(pwd)"
: >"$bin/tests.txt"
# GPU_PACK_TESTS=0 leaves the Go test binaries out (a run of the op check
# or the bench alone needs none of them); GPU_PACK_TESTS="./ ./compiler/..."
# packs only those packages' tests (the parts stay fewer).
pkgs=""
case "${GPU_PACK_TESTS:-1}" in
  0) ;;
  1) pkgs="$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)" ;;
  *) pkgs="$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $GPU_PACK_TESTS)" ;;
esac
for pkg in $pkgs; do
  dir="$(go list -f '{{.Dir}}' "$pkg")"
  dir="${dir#"$root"}"
  name="$(echo "root$dir" | tr / _)"
  go test -c -o "$bin/$name.test" "$pkg"
  echo "$name .$dir" >>"$bin/tests.txt"
done
go build -o "$bin/emily-repl" ./cmd/emily-repl
go build -o "$bin/bench" ./bench
go build -o "$bin/bench-minilm" ./bench/minilm
go build -o "$bin/bench-generate" ./bench/generate
go build -o "$bin/bench-train" ./bench/train
go build -o "$bin/bench-serve" ./bench/serve
go build -o "$bin/opcheck" ./internal/opcheck/run
g++ -std=c++20 -O2 -I.deps/mlx/mlx/include bench/control/chain.cc -L.deps/mlx/mlx/lib -lmlx \
  -Wl,-rpath,'$ORIGIN/../.deps/mlx/mlx/lib' -o "$bin/chain"
shopt -s nullglob
gzip -9 "$bin"/*.test "$bin"/opcheck "$bin"/emily-repl "$bin"/bench "$bin"/bench-minilm "$bin"/bench-generate "$bin"/bench-train "$bin"/bench-serve "$bin"/chain

pipargs=(--quiet --no-deps --only-binary=:all: --platform manylinux_2_35_x86_64
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --implementation cp)
python3 -m pip download "${pipargs[@]}" --python-version 3.12 --dest "$stage/pack/wheels" \
  "mlx==$version" "scipy-openblas32==${OPENBLAS_VERSION:-0.3.34.481.3}" "mlx-cuda-13==$version"
# The yaegi corpus (interp/corpus's programs, from the module cache: no Go
# toolchain there to fetch it).
yaegi_version="$(sed -n 's|^[[:space:]]*github.com/traefik/yaegi \(v[^ ]*\)$|\1|p' go.mod | head -1)"
yaegi="$(cd "$stage" && go mod download -json "github.com/traefik/yaegi@$yaegi_version" | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",$|\1|p')"
if [[ -d "$yaegi/_test" ]]; then
  mkdir -p "$stage/pack/yaegi" && cp -r "$yaegi/_test" "$stage/pack/yaegi/" && chmod -R u+w "$stage/pack/yaegi"
fi
# GPU_PACK_MINILM=1 adds all-MiniLM-L6-v2 (`make minilm`, 88 MB) for the
# models/bert tests and the MiniLM bench there.
if [[ "${GPU_PACK_MINILM:-0}" == 1 ]]; then
  cp -rL .deps/minilm "$stage/pack/minilm"
fi
# GPU_PACK_LLM=1 adds SmolLM2's GGUF (`make llm`, 98 MB) and the mlx-lm
# wheel (no dependencies: the machine's Python has transformers) for
# GPU_CHECK=generate, models/llama beside mlx-lm on the same weights.
if [[ "${GPU_PACK_LLM:-0}" == 1 ]]; then
  cp -L .deps/llm.gguf "$stage/pack/llm.gguf"
  # The tokenizer files scripts/gguf-to-mlx.py made here (small; the
  # weights are converted there): used there if its own run of the script
  # cannot write them (other transformers/tokenizers versions).
  if [[ -f .deps/llm-mlx/tokenizer.json ]]; then
    mkdir -p "$stage/pack/llm-mlx-tokenizer"
    for f in tokenizer.json tokenizer_config.json chat_template.jinja special_tokens_map.json; do
      [[ -f ".deps/llm-mlx/$f" ]] && cp ".deps/llm-mlx/$f" "$stage/pack/llm-mlx-tokenizer/"
    done
  fi
  python3 -m pip download "${pipargs[@]}" --python-version 3.12 --dest "$stage/pack/wheels" "mlx-lm==${MLXLM_VERSION:-0.32.2}"
fi
# GPU_PACK_LLAMACPP=1 adds llama.cpp's sources (scripts/llamacpp-src.sh,
# 8 MB), from which GPU_CHECK=llamacpp builds llama-bench and llama-server
# with CUDA there. A run can instead carry that tarball and
# scripts/gpu-llamacpp.sh in its first call, to build while the parts
# travel.
if [[ "${GPU_PACK_LLAMACPP:-0}" == 1 ]]; then
  cp "$(scripts/llamacpp-src.sh)" "$stage/pack/llama.cpp-src.tar.xz"
fi
tar -C "$stage" -c pack | split -b 56M -d -a 1 - "$stage/part."
i=1
for part in "$stage"/part.*; do
  mkdir -p "$out/p$i"
  mv "$part" "$out/p$i/"
  i=$((i + 1))
done
du -sh "$out"/p*
