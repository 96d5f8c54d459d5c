#!/usr/bin/env bash
# llamacpp-src.sh: makes (once) and prints the path of
# .deps/llama.cpp-src-VERSION.tar.xz, llama.cpp's sources for a machine
# with no network: the llama.cpp that PyPI's llama-cpp-python sdist
# vendors (as scripts/setup-generate-peers.sh builds here; COMMIT names
# its llama.cpp commit), without its models, docs and tests, 8 MB of xz
# against the sdist's 77 MB, which no one device call can carry.
# scripts/gpu-llamacpp.sh builds it there.
set -euo pipefail
cd "$(dirname "$0")/.."
lcpp="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
src=".deps/llama.cpp-src-$lcpp.tar.xz"
if [[ ! -f "$src" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: -d "$work" "llama-cpp-python==$lcpp"
  tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
  sdist="$(echo "$work"/llama_cpp_python-*/)"
  grep -m1 -o 'llama.cpp@[0-9a-f]*' "$sdist/CHANGELOG.md" >"$sdist/vendor/llama.cpp/COMMIT" || true
  mkdir -p .deps
  tar -C "$sdist/vendor" --exclude=llama.cpp/models --exclude=llama.cpp/docs --exclude=llama.cpp/media \
    --exclude=llama.cpp/benches --exclude=llama.cpp/gguf-py --exclude=llama.cpp/conversion --exclude=llama.cpp/tests \
    --exclude='llama.cpp/.git*' -cJf "$src.tmp" llama.cpp
  mv "$src.tmp" "$src"
fi
echo "$src"
