"""torch.distributed.all_reduce (NCCL) timed as bench/distributed/allsum
times Emily's AllSum: one all-reduce at a time (torch.cuda.synchronize
after each), median over the repeats after 3 warm-up calls, algbw =
bytes/time and busbw = algbw * 2(n-1)/n, printed by rank 0 in the same
line format. Run on an N-GPU machine (scripts/gpu-multi.sh):

    python3 bench/distributed/torch_allreduce.py -n N [MB ...]
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, n, sizes, port):
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # the device docs: NVLink multicast off
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.cuda.set_device(rank % torch.cuda.device_count())
    dist.init_process_group("nccl", rank=rank, world_size=n)
    if rank == 0:
        print(f"torch_allreduce: nccl world of {n}, torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", flush=True)
    for mb in sizes:
        elems = int(mb * (1 << 20) / 4)
        x = torch.full((elems,), float(rank + 1), device="cuda", dtype=torch.float32)
        reps = max(5, min(50, int(5e10 / (4 * elems))))
        times = []
        for i in range(3 + reps):
            y = x.clone()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            dist.all_reduce(y)
            torch.cuda.synchronize()
            d = time.perf_counter() - t0
            if i == 0:
                want = n * (n + 1) / 2
                assert y[0].item() == want, (mb, y[0].item(), want)
            if i >= 3:
                times.append(d)
        med = statistics.median(times)
        alg = 4 * elems / med / 1e9
        bus = alg * 2 * (n - 1) / n
        if rank == 0:
            print(f"torch_allreduce n={n} size_mb={mb:g} time_us={med * 1e6:.1f} algbw_gbps={alg:.2f} busbw_gbps={bus:.2f}", flush=True)
        del x, y
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, required=True)
    ap.add_argument("--port", type=int, default=29517)
    ap.add_argument("sizes", nargs="*", type=float, default=[1, 4, 16, 64, 256, 1024])
    a = ap.parse_args()
    mp.spawn(rank_main, args=(a.n, a.sizes, a.port), nprocs=a.n, join=True)


if __name__ == "__main__":
    main()
