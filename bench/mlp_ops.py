"""mlp_ops.py: the bench's MLP forward (64×784→512→10) op by op, through
MLX's Python API on Emily's libmlx.so and through NumPy, in one process,
to see where its time goes (BENCHMARKS.md, "MLP forward on the CPU").

    OPENBLAS_NUM_THREADS=1 .venv-bench/bin/python bench/mlp_ops.py [--site .deps/mlx]

Medians of 200 calls, each ending in mx.eval. With OPENBLAS_NUM_THREADS
unset, NumPy's OpenBLAS uses every core and MLX's the shim's setting.
"""
import argparse
import os
import sys
import time


def timeit(fn, n=200):
    fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", default=".deps/mlx", help="folder holding mlx/")
    args = ap.parse_args()
    sys.path.insert(0, args.site)
    import mlx.core as mx
    import numpy as np

    mx.set_default_device(mx.cpu)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 784), dtype=np.float32)
    w1 = (rng.standard_normal((784, 512)) * 0.05).astype(np.float32)
    b1 = rng.standard_normal(512).astype(np.float32)
    w2 = (rng.standard_normal((512, 10)) * 0.05).astype(np.float32)
    b2 = rng.standard_normal(10).astype(np.float32)
    X, W1, B1, W2, B2 = [mx.array(a) for a in (x, w1, b1, w2, b2)]
    hm, h = x @ w1, np.maximum(x @ w1 + b1, 0)
    HM, H = X @ W1, mx.maximum(X @ W1 + B1, 0)
    mx.eval(HM, H)
    rows = {
        "full MLP forward": (lambda: mx.eval(mx.maximum(X @ W1 + B1, 0) @ W2 + B2),
                             lambda: np.maximum(x @ w1 + b1, 0) @ w2 + b2),
        "matmul 64×784×512": (lambda: mx.eval(X @ W1), lambda: x @ w1),
        "bias add 64×512": (lambda: mx.eval(HM + B1), lambda: hm + b1),
        "relu 64×512": (lambda: mx.eval(mx.maximum(HM, 0)), lambda: np.maximum(hm, 0)),
        "matmul 64×512×10": (lambda: mx.eval(H @ W2), lambda: h @ w2),
    }
    print("OPENBLAS_NUM_THREADS:", os.environ.get("OPENBLAS_NUM_THREADS", "unset"))
    for name, (m, n) in rows.items():
        print(f"{name:22s} MLX {timeit(m):8.1f} µs   NumPy {timeit(n):8.1f} µs")


if __name__ == "__main__":
    main()
