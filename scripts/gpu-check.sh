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
# Logs and the bench's JSON go to $OUT (or ./gpu-out).
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
pack="$(cd "$(dirname "$0")/../.." && pwd)"   # holds src/ and wheels/
# CUDA 13 libraries already on the machine (its PyTorch's), linked rather
# than installed: nothing can be downloaded there.
export MLX_NVIDIA_DIR="${MLX_NVIDIA_DIR:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia}"
export EMILY_MEMORY_LIMIT="${EMILY_MEMORY_LIMIT:-16G}"

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

# GPU_CHECK=minilm (a pack made with GPU_PACK_MINILM=1): only the MiniLM
# bench, Emily on the GPU beside torch CUDA (sentence-transformers when
# that Python has it, else plain torch on the same weights).
if [[ "${GPU_CHECK:-all}" == minilm ]]; then
  MINILM_WHEELHOUSE="$pack/wheels" scripts/fetch-minilm.sh 2>&1 | tee -a "$out/gpu.txt"
  ./bin/bench-minilm -device gpu -python "${TORCH_PYTHON:-/opt/torch/.venv/bin/python}" -torch-device cuda \
    -json "$out/minilm.json" 2>&1 | tee "$out/bench-minilm-gpu.log"
  exit 0
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
timeout -k 30 "${OPCHECK_TIMEOUT:-300}" ./bin/opcheck -out /tmp/opcheck-gpu -v "$nofuse" \
  -skip "${OPCHECK_SKIP-Take|TakeAlongAxis|PutAlongAxis|Scatter|ScatterAdd|Diagonal|Trace|TraceWith|DiagonalWith|Einsum}" \
  >/tmp/opcheck.txt 2>&1
echo "opcheck rc=$?" >>/tmp/opcheck.txt
grep -E '^(FAIL|opcheck)' /tmp/opcheck.txt | tail -n 40
cp /tmp/opcheck.txt "$out/opcheck.txt"
cp /tmp/opcheck.txt /tmp/opcheck-gpu/summary.txt 2>/dev/null
tar -C /tmp -cJf "$out/opcheck-gpu.tar.xz" opcheck-gpu
[[ "${GPU_CHECK:-all}" == opcheck ]] && exit 0

fail=0
# Each test binary runs in its package's folder, as `go test` runs it.
while read -r name dir; do
  echo "== $name ($dir)" | tee -a "$out/tests.log"
  (cd "$dir" && timeout 300 "$pack/src/bin/$name.test" 2>&1) | tail -n 25 | tee -a "$out/tests.log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
done <bin/tests.txt
printf 'x := emily.Arange(6).Reshape(2, 3).Astype(emily.Float32)\nfunc f(a *emily.Tensor) *emily.Tensor {\n\treturn emily.Exp(emily.Mul(a, emily.Scalar(0.5)))\n}\n%%jit f\nf(x)\nx.Device()\n%%jit fuse=true f\nf(x)\n%%ir f\n' \
  | ./bin/emily-repl 2>&1 | tee "$out/repl.log"
./bin/chain gpu 1048576 50 2>&1 | tee "$out/control.log"
./bin/chain gpu 1024 200 2>&1 | tee -a "$out/control.log"
./bin/bench -python python3 -json "$out/bench.json" 2>&1 | tee "$out/bench-gpu.log"
# Thread changes: the same floor and chain rows with the bench on one OS thread.
./bin/bench -lock -only floor,chain:16,chain:1048576 2>&1 | tee "$out/bench-gpu-locked.log"
echo "tests: $([[ $fail == 0 ]] && echo all passed || echo FAILURES)"
