#!/usr/bin/env bash
# gpu-check.sh: on a CUDA machine with no Go toolchain and no network,
# installs MLX through scripts/install-mlx.sh (which picks mlx-cuda-13 there
# by itself) from the wheels scripts/gpu-pack.sh prepared, then runs every
# prebuilt Go test binary, the REPL, the C++ control experiment and the
# bench (with MLX's Python API and NumPy beside it). No LD_LIBRARY_PATH: the
# binaries find libmlx.so by rpath, libmlx.so finds CUDA by its own.
#
# Here:   scripts/gpu-pack.sh .gpu        (builds .gpu/p1, .gpu/p2, ...)
# There:  one call per part, back to back, each carrying .gpu/pN and running
#           mkdir -p /tmp/emily && cp .gpu/pN/part.* /tmp/emily/
#         and the last one going on with
#           cd /tmp/emily && cat part.* | tar -x && bash pack/src/scripts/gpu-check.sh
# Logs and the bench's JSON go to $OUT (or ./gpu-out). GPU_CHECK picks the
# steps, comma-separated: opcheck, tests (the test binaries and the REPL),
# bench (the C++ control and the bench); "all" (the default) is all three.
# Each step fits one device call when they are run one per call.
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
pack="$(cd "$(dirname "$0")/../.." && pwd)"   # holds src/ and wheels/
# CUDA 13 libraries already on the machine (its PyTorch's), linked rather
# than installed: nothing can be downloaded there.
export MLX_NVIDIA_DIR="${MLX_NVIDIA_DIR:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia}"
export EMILY_MEMORY_LIMIT="${EMILY_MEMORY_LIMIT:-16G}"
# The MiniLM weights, when gpu-pack.sh was given GPU_PACK_MINILM=1.
[[ -d "$pack/minilm" ]] && export EMILY_MINILM="$pack/minilm"
# No Go toolchain there: the tests take the prebuilt REPL and the carried
# yaegi corpus instead of building and downloading them.
export EMILY_REPL_BINARY="$pack/src/bin/emily-repl"
[[ -d "$pack/yaegi" ]] && export EMILY_YAEGI_DIR="$pack/yaegi"

want() { [[ ",${GPU_CHECK:-all}," == *",all,"* || ",${GPU_CHECK:-all}," == *",$1,"* ]]; }

cd "$pack/src"
for f in bin/*.gz; do gunzip -f "$f"; done
touch bin/tests.txt
chmod +x bin/*

{
  nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
  command -v cc >/dev/null || echo "no C compiler: the BLAS shim needs one; keeping the reference BLAS"
} 2>&1 | tee "$out/gpu.txt"
command -v cc >/dev/null || export MLX_BLAS=reference
MLX_WHEELHOUSE="$pack/wheels" scripts/install-mlx.sh 2>&1 | tee -a "$out/gpu.txt"
python3 -m zipfile -e "$pack"/wheels/mlx-*-cp312-*.whl .deps/mlx/
readelf -d bin/emily-repl | grep -E 'RUNPATH|RPATH' | tee -a "$out/gpu.txt"
./bin/emily-repl version 2>&1 | tee -a "$out/gpu.txt"

# GPU_CHECK=minilm (named on its own, not part of "all"; a pack made with
# GPU_PACK_MINILM=1): the MiniLM bench, Emily on the GPU beside torch CUDA
# (sentence-transformers when that Python has it, else plain torch on the
# same weights).
if [[ ",${GPU_CHECK:-all}," == *",minilm,"* ]]; then
  ./bin/bench-minilm -device gpu -python "${TORCH_PYTHON:-/opt/torch/.venv/bin/python}" -torch-device cuda \
    -json "$out/minilm.json" 2>&1 | tee "$out/bench-minilm-gpu.log"
fi

# GPU_CHECK=llamacpp (named on its own; a pack made with GPU_PACK_LLAMACPP=1):
# llama-bench and llama-server built with CUDA for this GPU's architecture
# into /tmp/llama-build/bin, which GPU_CHECK=generate and serve then use as
# their llama.cpp peers (scripts/gpu-llamacpp.sh; LLAMACPP_BG=1 builds in
# the background, and LLAMACPP_WAIT=S makes those steps wait for it).
if [[ ",${GPU_CHECK:-all}," == *",llamacpp,"* && -f "$pack/llama.cpp-src.tar.xz" ]]; then
  bash scripts/gpu-llamacpp.sh "$pack/llama.cpp-src.tar.xz" 2>&1 | tee -a "$out/gpu.txt"
fi
# Waits (up to LLAMACPP_WAIT seconds) for a background llama.cpp build.
llama_bin() {
  local waited=0
  while [[ -d /tmp/llama-build && ! -f /tmp/llama-build/done && $waited -lt ${LLAMACPP_WAIT:-0} ]] && pgrep -f 'cmake --build /tmp/llama-build' >/dev/null; do
    sleep 5; waited=$((waited + 5))
  done
  [[ -x "/tmp/llama-build/bin/$1" ]] && echo "-$1 /tmp/llama-build/bin/$1"
}

# The mlx-lm peers' model: the GGUF converted there by
# scripts/gguf-to-mlx.py (MLX's own GGUF reader), once; the tokenizer files
# made here are the fallback when the script cannot write them there.
mlx_model() {
  site=/tmp/mlxlm-site
  [[ -d "$site/mlx_lm" ]] || python3 -m pip install --quiet --no-deps --no-index --target "$site" "$pack"/wheels/mlx_lm-*.whl 2>&1 | tail -3
  export PYTHONPATH="$PWD/.deps/mlx:$site${PYTHONPATH:+:$PYTHONPATH}"
  if [[ ! -f /tmp/llm-mlx/model.safetensors ]]; then
    python3 scripts/gguf-to-mlx.py "$pack/llm.gguf" /tmp/llm-mlx 2>&1 | tail -5
  fi
  if [[ ! -f /tmp/llm-mlx/tokenizer.json && -d "$pack/llm-mlx-tokenizer" ]]; then
    echo "gguf-to-mlx.py wrote no tokenizer here: the packed one is used"
    cp "$pack"/llm-mlx-tokenizer/* /tmp/llm-mlx/
  fi
}

# GPU_CHECK=generate (named on its own; a pack made with GPU_PACK_LLM=1):
# bench-generate, models/llama in every lane beside mlx-lm on the same
# weights (converted there by scripts/gguf-to-mlx.py with MLX's own GGUF
# reader). llama.cpp is not built there (no network for its sources).
if [[ ",${GPU_CHECK:-all}," == *",generate,"* && -f "$pack/llm.gguf" ]]; then
  mlx_model
  ./bin/bench-generate -model "$pack/llm.gguf" -device gpu -mlxlm-python python3 -mlxlm-model /tmp/llm-mlx \
    $(llama_bin llama-bench) -rounds "${GENERATE_ROUNDS:-3}" -json "$out/generate.json" ${GENERATE_FLAGS:-} 2>&1 | tee "$out/bench-generate-gpu.log"
fi

# GPU_CHECK=serve (named on its own; a pack made with GPU_PACK_LLM=1):
# bench-serve, emily-repl serve on the GPU with SERVE_FLAGS (default: 1, 8,
# 32 and 64 streaming clients, short and long prompts), beside
# mlx_lm.server on the converted weights and llama-server when
# GPU_CHECK=llamacpp built it.
if [[ ",${GPU_CHECK:-all}," == *",serve,"* && -f "$pack/llm.gguf" ]]; then
  mlx_model
  peers="-mlxlm-python python3 -mlxlm-model /tmp/llm-mlx"
  [[ "${SERVE_PEERS:-1}" == 0 ]] && peers=""
  [[ "${SERVE_PEERS:-1}" == 0 ]] || peers="$peers $(llama_bin llama-server)"
  ./bin/bench-serve -emily bin/emily-repl -model "$pack/llm.gguf" $peers -json "$out/serve.json" \
    ${SERVE_FLAGS:-} 2>&1 | tee "$out/bench-serve-gpu.log"
fi

# GPU_CHECK=train (named on its own): bench-train, the MLP, CNN and tiny
# GPT train steps in the native and fuse lanes beside mlx.nn +
# mlx.optimizers under mx.compile and the machine's own PyTorch
# (TORCH_PYTHON; torch.compile, eager where it cannot compile: no network
# is needed either way), on each of TRAIN_DEVICES (gpu, cpu).
if [[ ",${GPU_CHECK:-all}," == *",train,"* ]]; then
  for d in ${TRAIN_DEVICES:-gpu}; do
    ./bin/bench-train -device "$d" -rounds "${TRAIN_ROUNDS:-3}" -python python3 -torch-python "${TORCH_PYTHON:-/opt/torch/.venv/bin/python}" \
      ${TRAIN_FLAGS:-} 2>&1 | tee "$out/bench-train-$d.log"
  done
fi

# GPU_CHECK=dist (named on its own): MLX's distributed layer on one GPU.
# The mlx-cuda-13 wheel links NCCL directly (NEEDED libnccl.so.2, RPATH
# $ORIGIN/../../nvidia/nccl/lib), which is .deps/mlx-cuda-13/nvidia: the
# nvidia-nccl-cu13 wheel there, or MLX_NVIDIA_DIR's (the machine's own
# site-packages/nvidia, linked by install-mlx.sh). The log says which
# libnccl.so.2 was found; then an NCCL world of size 1 initializes through
# emily-repl launch --backend nccl and scripts/dist-check.go runs a jitted
# AllSum and a data-parallel train step.
if [[ ",${GPU_CHECK:-all}," == *",dist,"* ]]; then
  {
    echo "libnccl.so.2 for libmlx.so: $(ldd .deps/mlx/mlx/lib/libmlx.so | grep -i nccl || echo 'not found')"
    ls -l .deps/mlx/nvidia .deps/mlx/nvidia/nccl/lib 2>&1 | head -n 8
    NCCL_DEBUG=VERSION timeout -k 10 300 ./bin/emily-repl launch -n 1 --backend nccl --timeout 240s scripts/dist-check.go
    echo "dist rc=$?"
  } 2>&1 | tee "$out/dist.log"
fi

# The op check: every op of the spec eagerly and in every lane on the GPU
# (its own lane comparison), operands and results brought back for
# EMILY_OPCHECK_DIR=... pytest tests/test_ops_numpy.py here.
# MLX's CUDA backend compiles kernels with NVRTC on first use: with the
# fuse lane the check managed ~30 cases a minute on an H200, and without it
# the gather/scatter ops below still took 14-96 s each (a kernel per dtype
# and rank); they are left out unless OPCHECK_SKIP says otherwise, and the
# fuse lane unless OPCHECK_FUSE=1.
nofuse=-nofuse
[[ -n "${OPCHECK_FUSE:-}" ]] && nofuse=-nofuse=false
if want opcheck; then
timeout -k 30 "${OPCHECK_TIMEOUT:-300}" ./bin/opcheck -out /tmp/opcheck-gpu -v "$nofuse" \
  -skip "${OPCHECK_SKIP-Take|TakeAlongAxis|PutAlongAxis|Scatter|ScatterAdd|Diagonal|Trace|TraceWith|DiagonalWith|Einsum}" \
  >/tmp/opcheck.txt 2>&1
echo "opcheck rc=$?" >>/tmp/opcheck.txt
grep -E '^(FAIL|opcheck)' /tmp/opcheck.txt | tail -n 40
cp /tmp/opcheck.txt "$out/opcheck.txt"
cp /tmp/opcheck.txt /tmp/opcheck-gpu/summary.txt 2>/dev/null
tar -C /tmp -cJf "$out/opcheck-gpu.tar.xz" opcheck-gpu
fi

fail=0
if want tests; then
# Each test binary runs in its package's folder, as `go test` runs it.
while read -r name dir; do
  echo "== $name ($dir)" | tee -a "$out/tests.log"
  # The whole -v logs go to $OUT as one archive, refreshed after each
  # binary (a call cut by the device's time limit still brings them back,
  # and the device returns only a few files); the tail to tests.log.
  mkdir -p /tmp/test-logs
  (cd "$dir" && timeout -k 10 "${TEST_TIMEOUT:-300}" "$pack/src/bin/$name.test" -test.v -test.run "${TEST_RUN:-.}" 2>&1) \
    | tee "/tmp/test-logs/$name.log" | tail -n 25 | tee -a "$out/tests.log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
  tar -C /tmp -cJf "$out/test-logs.tar.xz" test-logs
done <bin/tests.txt
printf 'x := emily.Arange(6).Reshape(2, 3).Astype(emily.Float32)\nfunc f(a *emily.Tensor) *emily.Tensor {\n\treturn emily.Exp(emily.Mul(a, emily.Scalar(0.5)))\n}\n%%jit f\nf(x)\nx.Device()\n%%jit fuse=true f\nf(x)\n%%ir f\n' \
  | ./bin/emily-repl 2>&1 | tee "$out/repl.log"
echo "tests: $([[ $fail == 0 ]] && echo all passed || echo FAILURES)"
fi
want bench || exit $fail
./bin/chain gpu 1048576 100 2>&1 | tee "$out/control.log"
./bin/chain gpu 1024 200 2>&1 | tee -a "$out/control.log"
./bin/bench -python python3 -rounds "${BENCH_ROUNDS:-3}" -json "$out/bench.json" ${BENCH_FLAGS:-} 2>&1 | tee "$out/bench-gpu.log"
# Thread changes (GPU_LOCKED=1): the same floor and chain rows with the
# bench on one OS thread (in BENCHMARKS.md: they are not the cost).
if [[ "${GPU_LOCKED:-0}" == 1 ]]; then
  ./bin/bench -lock -only floor,chain:16,chain:1048576 2>&1 | tee "$out/bench-gpu-locked.log"
fi
exit $fail
