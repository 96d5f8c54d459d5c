#!/usr/bin/env bash
# gpu-llamacpp.sh SRC.tar.xz: on the CUDA machine (no network), builds
# llama.cpp's llama-bench and llama-server with CUDA for this GPU's
# architecture into /tmp/llama-build/bin, from the sources that
# scripts/gpu-pack.sh packs with GPU_PACK_LLAMACPP=1 (the llama.cpp that
# PyPI's llama-cpp-python sdist vendors; COMMIT names it). The peers of
# bench-generate and bench-serve there (gpu-check.sh's llama_bin).
#
# The build takes minutes on 16 cores: LLAMACPP_BG=1 starts it with setsid
# and returns at once, so that it can run while the rest of the pack is
# still being carried (the first call of a run can carry the 8 MB of
# sources and this script alone). /tmp/llama-build/done marks a finished
# build; the log is /tmp/llama-build/build.log.
set -euo pipefail
src="$1"
dir=/tmp/llama-build
[[ -f "$dir/done" ]] && { echo "llama.cpp: already built in $dir/bin"; exit 0; }
pgrep -f 'cmake --build /tmp/llama-build' >/dev/null && { echo "llama.cpp: a build is running"; exit 0; }
mkdir -p "$dir"
tar -xJf "$src" -C "$dir"
arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
build() {
  set -euo pipefail
  cmake -S "$dir/llama.cpp" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF
  cmake --build "$dir/build" --target llama-bench llama-server -j "$(nproc)"
  mkdir -p "$dir/bin"
  cp "$dir/build/bin/llama-bench" "$dir/build/bin/llama-server" "$dir/bin/"
  touch "$dir/done"
}
if [[ "${LLAMACPP_BG:-0}" == 1 ]]; then
  export -f build
  export dir arch
  setsid bash -c build >"$dir/build.log" 2>&1 </dev/null &
  echo "llama.cpp: building in the background ($dir/build.log)"
else
  build >"$dir/build.log" 2>&1 || { tail -n 20 "$dir/build.log"; exit 1; }
  tail -n 3 "$dir/build.log"
fi
