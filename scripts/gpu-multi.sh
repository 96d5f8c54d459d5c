#!/usr/bin/env bash
# gpu-multi.sh: the multi-GPU run of issue 24, on an N-GPU machine with no
# Go toolchain and no network, in one device call after the pack's parts
# (scripts/gpu-pack.sh, as for gpu-check.sh):
#
#   cd /tmp/emily && cat part.* | tar -x && bash pack/src/scripts/gpu-multi.sh
#
# It installs MLX as gpu-check.sh does, then for n = 1, 2, 4, 8 GPUs (as
# many as nvidia-smi lists, or GPU_MULTI_N="1 2"):
#   - emily-repl launch -n n --backend nccl bench/distributed/allsum: AllSum
#     bus bandwidth, 1 MB to 1 GB, beside torch.distributed.all_reduce
#     (bench/distributed/torch_allreduce.py) on the same GPUs;
#   - bench/distributed/dptrain: MLP and tiny-GPT data-parallel train
#     steps/s at a global batch of n times the per-GPU batch (weak
#     scaling), and the loss of n GPUs against 1 GPU on the same global
#     batch for the first 10 steps;
# and prints the scaling efficiencies and the loss differences at the end.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, the device docs), in
# every rank's environment: launch sets it, and it is exported here for
# torch. GPU_MULTI_DRYRUN=1 prints the commands without running them.
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
src="$(cd "$(dirname "$0")/.." && pwd)"
export NCCL_NVLS_ENABLE=0
torch="${TORCH_PYTHON:-/opt/torch/.venv/bin/python}"
dry="${GPU_MULTI_DRYRUN:-}"
log="$out/multi.log"
: >"$log"

run() { # run CMD...: echo it, then (unless dry) run it into the log
  echo "+ $*" | tee -a "$log"
  [[ -n "$dry" ]] && return 0
  "$@" 2>&1 | tee -a "$log"
}

if [[ -z "$dry" ]]; then
  GPU_CHECK=none bash "$src/scripts/gpu-check.sh" >"$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
fi
cd "$src"
gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)"
[[ "$gpus" -ge 1 ]] || gpus=1
ns="${GPU_MULTI_N:-}"
if [[ -z "$ns" ]]; then
  for n in 1 2 4 8; do [[ $n -le $gpus ]] && ns="$ns $n"; done
fi
mlp_batch="${GPU_MULTI_MLP_BATCH:-1024}"   # per GPU
gpt_batch="${GPU_MULTI_GPT_BATCH:-256}"    # per GPU, 64 characters each
steps="${GPU_MULTI_STEPS:-112}"
echo "gpu-multi: $gpus GPU(s), runs at n =$ns; commit $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo '?')" | tee -a "$log"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null | tee -a "$log"

launch=(timeout -k 10 540 ./bin/emily-repl launch --backend nccl --timeout 500s)
for n in $ns; do
  run "${launch[@]}" -n "$n" bench/distributed/allsum/main.go 1 4 16 64 256 1024
  [[ $n -ge 2 ]] && run timeout -k 10 300 "$torch" bench/distributed/torch_allreduce.py -n "$n" 1 4 16 64 256 1024
  run "${launch[@]}" -n "$n" bench/distributed/dptrain/main.go mlp $((mlp_batch * n)) "$steps"
  run "${launch[@]}" -n "$n" bench/distributed/dptrain/main.go gpt $((gpt_batch * n)) "$steps"
  if [[ $n -ge 2 ]]; then
    # The same global batches on one GPU: the loss must match n GPUs'.
    run "${launch[@]}" -n 1 bench/distributed/dptrain/main.go mlp $((mlp_batch * n)) 12
    run "${launch[@]}" -n 1 bench/distributed/dptrain/main.go gpt $((gpt_batch * n)) 12
  fi
done
[[ -n "$dry" ]] && exit 0
python3 "$src/scripts/gpu-multi-summary.py" "$log" | tee "$out/multi-summary.txt"
