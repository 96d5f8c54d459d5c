"""Summary of scripts/gpu-multi.sh's log: AllSum bus bandwidth beside
torch's all_reduce at each n and size, the ratio at 256 MB (target
>= 0.9), data-parallel weak-scaling efficiency (samples/s at n over n
times samples/s at 1; targets >= 90% at 2 and >= 80% at 8 for the tiny
GPT), and the largest relative loss difference of n GPUs against one GPU
on the same global batch over the first 10 steps."""
import re
import sys
from collections import defaultdict


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def main(path):
    bw = defaultdict(dict)          # (n, mb) -> {emily, torch}
    sps = {}                        # (model, n) -> samples/s
    loss = defaultdict(dict)        # (model, batch) -> {n: [losses]}
    for raw in open(path, encoding="utf-8", errors="replace"):
        line = re.sub(r"^\[rank \d+\]\s*", "", raw.strip())
        if line.startswith(("allsum n=", "torch_allreduce n=")):
            f = fields(line)
            who = "emily" if line.startswith("allsum") else "torch"
            bw[(int(f["n"]), float(f["size_mb"]))][who] = float(f["busbw_gbps"])
        elif line.startswith("dptrain model=") and "samples_per_s" in line:
            f = fields(line)
            sps[(f["model"], int(f["n"]))] = float(f["samples_per_s"])
        elif line.startswith("dptrain model=") and " loss=" in line:
            f = fields(line)
            loss[(f["model"], int(f["global_batch"]))].setdefault(int(f["n"]), []).append(float(f["loss"]))
    print("AllSum bus bandwidth (GB/s), Emily vs torch.distributed.all_reduce (NCCL):")
    for (n, mb), v in sorted(bw.items()):
        e, t = v.get("emily"), v.get("torch")
        ratio = f"{e / t:.2f}x" if e and t else "-"
        print(f"  n={n} {mb:>6g} MB  emily {e if e is not None else '-':>8}  torch {t if t is not None else '-':>8}  {ratio}")
    print("Data-parallel weak scaling (samples/s; efficiency vs n=1):")
    for model in ("mlp", "gpt"):
        base = sps.get((model, 1))
        for n in sorted(k[1] for k in sps if k[0] == model):
            s = sps[(model, n)]
            eff = f"{100 * s / (n * base):.0f}%" if base else "-"
            print(f"  {model} n={n}: {s:.0f} samples/s, efficiency {eff}")
    print("Loss, n GPUs against 1 GPU on the same global batch (first 10 steps):")
    for (model, batch), runs in sorted(loss.items()):
        if 1 not in runs or len(runs) < 2:
            continue
        for n, ls in sorted(runs.items()):
            if n == 1:
                continue
            d = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(ls, runs[1]))
            print(f"  {model} global batch {batch}: n={n} max relative difference {d:.2e} over {min(len(ls), len(runs[1]))} steps")


if __name__ == "__main__":
    main(sys.argv[1])
