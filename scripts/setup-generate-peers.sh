#!/usr/bin/env bash
# setup-generate-peers.sh: the peers `make bench-generate` runs beside
# models/llama, on the same GGUF (.deps/llm.gguf, or EMILY_LLM):
#
#   - .venv-mlxlm: mlx (the CPU wheel, .deps/mlx's version) and mlx-lm, with
#     the transformers and tokenizers that write and read its tokenizer
#     files (pinned: the files' format is theirs), and .deps/llm-mlx: the
#     GGUF's own weights and tokenizer as an mlx-lm model directory
#     (scripts/gguf-to-mlx.py; nothing requantized; its tokenizer checked
#     against llama.cpp's ids, and against `emily-repl tokenize` when
#     bin/emily-repl is built), which mlx_lm.server serves;
#   - with LLAMA_CPP=1, llama.cpp's llama-bench (and llama-server, for
#     make bench-serve) in .deps/llama.cpp/bin, built
#     CPU-only from the llama.cpp that PyPI's llama-cpp-python sdist vendors
#     (vendor/llama.cpp; its CHANGELOG names the llama.cpp commit). About
#     10 minutes on 2 cores; JOBS sets the build's parallelism (default:
#     nproc).
#
# Idempotent (stamps). Not part of make setup: benchmarks only.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
mlx="${MLX_VERSION:-0.32.4}"
mlxlm="${MLXLM_VERSION:-0.32.2}"
transformers="${TRANSFORMERS_VERSION:-5.24.0}"
tokenizers="${TOKENIZERS_VERSION:-0.23.3}"
jobs="${JOBS:-$(nproc)}"
lcpp="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
gguf="${EMILY_LLM:-.deps/llm.gguf}"
venv=.venv-mlxlm

stamp="$venv/.mlxlm-$mlx-$mlxlm-$transformers-$tokenizers"
if [[ ! -f "$stamp" ]]; then
  echo "setup-generate-peers: mlx $mlx, mlx-lm $mlxlm, transformers $transformers, tokenizers $tokenizers into $venv" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mlx[cpu]==$mlx" "mlx-lm==$mlxlm" \
    "transformers==$transformers" "tokenizers==$tokenizers"
  rm -f "$venv"/.mlxlm-*
  touch "$stamp"
fi
out=.deps/llm-mlx
# Made again when the GGUF, the converter or the venv changes (.from holds
# all three).
from="$(readlink -f "$gguf") $(sha256sum scripts/gguf-to-mlx.py | cut -c1-16) $(basename "$stamp")"
if [[ ! -f "$out/.from" || "$(cat "$out/.from")" != "$from" ]]; then
  echo "setup-generate-peers: $gguf as an mlx-lm model in $out" >&2
  rm -rf "$out"
  check=()
  [[ -x bin/emily-repl ]] && check=(--check-with bin/emily-repl)
  "$venv/bin/python" scripts/gguf-to-mlx.py "$gguf" "$out" "${check[@]}"
  echo "$from" >"$out/.from"
fi

if [[ "${LLAMA_CPP:-0}" == 1 && ( ! -x .deps/llama.cpp/bin/llama-bench || ( ! -x .deps/llama.cpp/bin/llama-server && ! -f .deps/llama.cpp/.no-server ) ) ]]; then
  echo "setup-generate-peers: llama.cpp (llama-cpp-python $lcpp's vendor/llama.cpp) into .deps/llama.cpp" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: -d "$work" "llama-cpp-python==$lcpp"
  tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
  src="$(echo "$work"/llama_cpp_python-*/vendor/llama.cpp)"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF >/dev/null
  cmake --build "$work/build" --target llama-bench -j "$jobs" >/dev/null
  mkdir -p .deps/llama.cpp/bin
  cp "$work/build/bin/llama-bench" .deps/llama.cpp/bin/
  # llama-server for make bench-serve; bench-generate does without it.
  if cmake --build "$work/build" --target llama-server -j "$jobs" >/dev/null; then
    cp "$work/build/bin/llama-server" .deps/llama.cpp/bin/
  else
    echo "setup-generate-peers: llama-server did not build: make bench-serve runs without its rows" >&2
    touch .deps/llama.cpp/.no-server # not tried again
  fi
  grep -m1 -o 'llama.cpp@[0-9a-f]*' "$work"/llama_cpp_python-*/CHANGELOG.md >.deps/llama.cpp/COMMIT || true
fi
