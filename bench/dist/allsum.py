"""MLX Python's side of bench/dist: mx.distributed.all_sum over the ring
the Go launcher set up (MLX_RANK, MLX_HOSTFILE), the same sizes and
iterations as the Go workers; rank 0 prints one line a size."""
import sys
import time

import mlx.core as mx

sizes = [int(s) for s in sys.argv[1].split(",")]
iters = int(sys.argv[2])
g = mx.distributed.init(strict=True, backend="ring")
for mib in sizes:
    x = mx.ones((mib << 20) // 4, dtype=mx.float32)
    mx.eval(x)
    for _ in range(2):
        mx.eval(mx.distributed.all_sum(x, group=g))
    t = time.perf_counter()
    for _ in range(iters):
        mx.eval(mx.distributed.all_sum(x, group=g))
    dt = (time.perf_counter() - t) / iters
    if g.rank() == 0:
        print(f"allsum {mib} {dt:.6f}", flush=True)
