#!/usr/bin/env bash
# gpu-check.sh: runs the prebuilt test binaries, the REPL and the bench on a
# CUDA machine against the mlx-cuda-13 wheel. Used on the H200 device
# machine, where there is no Go: build here with
#   go test -c -o .gpu/emily.test . (and mlxbind, compiler), go build bench and emily-repl,
# gzip them into .gpu/, split the wheel into .gpu/wheel.part.*, carry those.
# Writes logs to $OUT (or ./gpu-out).
set -uo pipefail
out="${OUT:-gpu-out}"
mkdir -p "$out" /tmp/emily
work=/tmp/emily
nvidia=/opt/torch/.venv/lib/python3.12/site-packages/nvidia

if [[ ! -f $work/site/mlx/lib/libmlx.so ]]; then
  # The wheel is over the 64 MiB carry limit: its parts arrive in two calls.
  cp .gpu/wheel.part.* $work/ 2>/dev/null
  cat $work/wheel.part.* > $work/mlx.whl
  python3 -m zipfile -e $work/mlx.whl $work/site
  ln -sfn $nvidia $work/site/nvidia
fi
for f in .gpu/*.gz; do gunzip -c "$f" > "$work/$(basename "${f%.gz}")"; chmod +x "$work/$(basename "${f%.gz}")"; done
export LD_LIBRARY_PATH=$work/site/mlx/lib:$nvidia/cu13/lib:$nvidia/cudnn/lib:$nvidia/nccl/lib
export EMILY_MEMORY_LIMIT=16G
cd $work
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv | tee "$out/gpu.txt"
./emily-repl version | tee -a "$out/gpu.txt"
for t in mlxbind emily compiler; do
  echo "== $t.test" | tee -a "$out/tests.log"
  ./$t.test -test.v 2>&1 | tail -n 60 | tee -a "$out/tests.log"
done
printf 'x := emily.Arange(6).Reshape(2, 3)\nfunc f(a *emily.Tensor) *emily.Tensor {\n\treturn emily.Exp(emily.Mul(a, emily.Scalar(0.5)))\n}\n%%jit f\nf(x)\nx.Device()\n%%jit fuse=true f\nf(x)\n%%ir f\n' \
  | ./emily-repl 2>&1 | tee "$out/repl.log"
./bench 2>&1 | tee "$out/bench-gpu.log"
