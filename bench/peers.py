"""peers.py: the bench's workloads through MLX's Python API and NumPy.

`make bench` (bench/main.go) runs this with the bench venv's Python, with
MLX's Python bindings on the same libmlx.so Emily links (.deps/mlx), and
prints its times beside Emily's. Each case is timed as in main.go: a
warm-up spell (an eighth of the budget, at most 50 ms), then calls until the budget is spent (at least 2, at most
200), median. Every call ends with evaluation (mx.eval) or a readback.

    python bench/peers.py --site .deps/mlx --device cpu --budget 0.4 CASE...

prints one JSON object: {"CASE/peer": seconds per call, ...}.
"""
import argparse
import json
import sys
import time


def timeit(fn, budget):
    # Warm up for a spell, as bench/main.go's timeit does (a GPU's clocks
    # after an idle moment).
    warm = min(budget / 8, 0.05)
    t0 = time.perf_counter()
    fn()
    while time.perf_counter() - t0 < warm:
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < 2 or (time.perf_counter() - start < budget and len(times) < 200):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[(len(times) - 1) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", required=True, help="folder holding mlx/ (.deps/mlx)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--budget", type=float, default=0.4)
    ap.add_argument("--peak", action="store_true", help="also report each case's peak memory per call")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    sys.path.insert(0, args.site)
    import mlx.core as mx
    import numpy as np

    mx.set_default_device(mx.gpu if args.device == "gpu" else mx.cpu)
    rng = np.random.default_rng(0)

    def chain_mx(x, n):
        for i in range(n):
            if i % 3 == 0:
                x = x + x
            elif i % 3 == 1:
                x = x * 0.5
            else:
                x = mx.tanh(x)
        return x

    def chain_np(x, n):
        half = np.float32(0.5)
        for i in range(n):
            if i % 3 == 0:
                x = x + x
            elif i % 3 == 1:
                x = x * half
            else:
                x = np.tanh(x)
        return x

    def tanh33_mx(x):
        for _ in range(33):
            x = mx.tanh(x * 0.9 + 0.1)
        return x

    def tanh33_np(x):
        a, b = np.float32(0.9), np.float32(0.1)
        for _ in range(33):
            x = np.tanh(x * a + b)
        return x

    def mathmix_mx(x):
        for _ in range(4):
            x = mx.sigmoid(mx.log1p(mx.exp(-(x * x))))
        return x

    def mathmix_np(x):
        for _ in range(4):
            x = 1 / (1 + np.exp(-np.log1p(np.exp(-(x * x)))))
        return x

    def exp16_mx(x):
        for _ in range(16):
            x = mx.exp((x * x) * -0.5)
        return x

    def exp16_np(x):
        h = np.float32(-0.5)
        for _ in range(16):
            x = np.exp((x * x) * h)
        return x

    def log16_mx(x):
        for _ in range(16):
            x = mx.log(x * x + 1.5)
        return x

    def log16_np(x):
        c = np.float32(1.5)
        for _ in range(16):
            x = np.log(x * x + c)
        return x

    def sigmoid16_mx(x):
        for _ in range(16):
            x = mx.sigmoid(x * 2 - 1)
        return x

    def sigmoid16_np(x):
        one, two = np.float32(1), np.float32(2)
        for _ in range(16):
            x = one / (one + np.exp(-(x * two - one)))
        return x

    def gelu_mx(x):
        return x * (1 + mx.erf(x * 0.70710677)) / 2

    def softmax_mx(x):
        e = mx.exp(x - mx.max(x, axis=1, keepdims=True))
        return e / mx.sum(e, axis=1, keepdims=True)

    def softmax_np(x):
        e = np.exp(x - np.max(x, axis=1, keepdims=True))
        return e / np.sum(e, axis=1, keepdims=True)

    def mlp_mx(x, w1, b1, w2, b2):
        return mx.maximum(x @ w1 + b1, 0.0) @ w2 + b2

    def mlp_np(x, w1, b1, w2, b2):
        return np.maximum(x @ w1 + b1, np.float32(0)) @ w2 + b2

    # The decode-shaped transformer block (bench/block.go): H 1024, 16
    # heads of 64, 511 cached positions and the new one, SwiGLU 2816.
    H, HEADS, HD, KV, FF = 1024, 16, 64, 512, 2816

    def block_mx(x, n1, wq, wk, wv, wo, kc, vc, n2, wg, wu, wd):
        def heads(t):
            return t.reshape(1, 1, HEADS, HD).transpose(0, 2, 1, 3)

        def rope(t):
            return mx.fast.rope(t, HD, traditional=False, base=10000.0, scale=1.0, offset=KV - 1)

        h = mx.fast.rms_norm(x, n1, 1e-5)
        q = rope(heads(h @ wq))
        k = mx.concatenate([kc, rope(heads(h @ wk))], axis=2)
        v = mx.concatenate([vc, heads(h @ wv)], axis=2)
        a = mx.fast.scaled_dot_product_attention(q, k, v, scale=HD ** -0.5)
        x2 = x + a.transpose(0, 2, 1, 3).reshape(1, 1, H) @ wo
        h2 = mx.fast.rms_norm(x2, n2, 1e-5)
        g = h2 @ wg
        return x2 + ((g * mx.sigmoid(g)) * (h2 @ wu)) @ wd

    def block_params():
        return [normal(1, 1, H), np.ones(H, np.float32),
                normal(H, H) * np.float32(0.03), normal(H, H) * np.float32(0.03),
                normal(H, H) * np.float32(0.03), normal(H, H) * np.float32(0.03),
                normal(1, HEADS, KV - 1, HD), normal(1, HEADS, KV - 1, HD),
                np.ones(H, np.float32),
                normal(H, FF) * np.float32(0.03), normal(H, FF) * np.float32(0.03), normal(FF, H) * np.float32(0.02)]

    def block_np(x, n1, wq, wk, wv, wo, kc, vc, n2, wg, wu, wd):
        def rms(t, w):
            return t / np.sqrt(np.mean(t * t, axis=-1, keepdims=True) + np.float32(1e-5)) * w

        def heads(t):
            return t.reshape(1, 1, HEADS, HD).transpose(0, 2, 1, 3)

        half = HD // 2
        ang = np.float32(KV - 1) * np.float32(10000.0) ** (-np.arange(half, dtype=np.float32) * 2 / HD)
        c, s = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)

        def rope(t):
            t1, t2 = t[..., :half], t[..., half:]
            return np.concatenate([t1 * c - t2 * s, t1 * s + t2 * c], axis=-1)

        h = rms(x, n1)
        q = rope(heads(h @ wq))
        k = np.concatenate([kc, rope(heads(h @ wk))], axis=2)
        v = np.concatenate([vc, heads(h @ wv)], axis=2)
        sc = (q @ k.swapaxes(-1, -2)) * np.float32(HD ** -0.5)
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        a = (p / p.sum(axis=-1, keepdims=True)) @ v
        x2 = x + a.transpose(0, 2, 1, 3).reshape(1, 1, H) @ wo
        h2 = rms(x2, n2)
        g = h2 @ wg
        return x2 + ((g / (np.float32(1) + np.exp(-g))) * (h2 @ wu)) @ wd

    def normal(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    def model_cases(f_mx, f_np, ps_np):
        """MLX eager, mx.compile and NumPy cases of a function of weights."""
        ps = [mx.array(p) for p in ps_np]
        mx.eval(ps)
        comp = mx.compile(f_mx)
        return {
            "mlx": lambda: mx.eval(f_mx(*ps)),
            "mlx_compile": lambda: mx.eval(comp(*ps)),
            "numpy": lambda: f_np(*ps_np),
        }

    out = {"mlx_version": mx.__version__}
    for case in args.cases:
        kind, _, arg = case.partition(":")
        fns = {}
        if kind == "floor":
            a_np = np.ones(4, np.float32)
            a = mx.array(a_np)
            fns["mlx"] = lambda: np.array(a + a)
            fns["numpy"] = lambda: (a_np + a_np).copy()
        elif kind == "floorsteps":
            # bench/main.go's floorSteps: MLX Python's floor in its steps.
            a = mx.array(np.ones(4, np.float32))
            d = mx.ones(4)  # computed: a device buffer, as Emily's inputs
            mx.eval(d)
            r = a + a
            mx.eval(r)
            fns["add_eval"] = lambda: mx.eval(a + a)
            fns["add_read"] = lambda: np.array(a + a)
            fns["read_evaluated"] = lambda: np.array(r)
            fns["add_eval_device"] = lambda: mx.eval(d + d)
            fns["add_read_device"] = lambda: np.array(d + d)
        elif kind == "chain":
            x_np = normal(int(arg))
            x = mx.array(x_np)
            mx.eval(x)
            comp = mx.compile(lambda v: chain_mx(v, 100))
            fns["mlx"] = lambda: mx.eval(chain_mx(x, 100))
            fns["mlx_compile"] = lambda: mx.eval(comp(x))
            fns["numpy"] = lambda: chain_np(x_np, 100)
        elif kind in ("tanh33", "mathmix", "exp16", "log16", "sigmoid16", "gelu"):
            # NumPy has no erf: the GELU row has no NumPy column.
            f_mx, f_np = {"tanh33": (tanh33_mx, tanh33_np), "mathmix": (mathmix_mx, mathmix_np),
                          "exp16": (exp16_mx, exp16_np), "log16": (log16_mx, log16_np),
                          "sigmoid16": (sigmoid16_mx, sigmoid16_np),
                          "gelu": (gelu_mx, None)}[kind]
            x_np = normal(int(arg))
            x = mx.array(x_np)
            mx.eval(x)
            comp = mx.compile(f_mx)
            fns["mlx"] = lambda: mx.eval(f_mx(x))
            fns["mlx_compile"] = lambda: mx.eval(comp(x))
            if f_np is not None:
                fns["numpy"] = lambda: f_np(x_np)
        elif kind in ("matmul", "matmul_bf16"):
            n = int(arg)
            a_np, b_np = normal(n, n), normal(n, n)
            a, b = mx.array(a_np), mx.array(b_np)
            if kind == "matmul_bf16":
                a, b = a.astype(mx.bfloat16), b.astype(mx.bfloat16)
            else:
                fns["numpy"] = lambda: a_np @ b_np
            mx.eval(a, b)
            fns["mlx"] = lambda: mx.eval(a @ b)
        elif kind == "softmax":
            x_np = normal(1024, 1024)
            x = mx.array(x_np)
            mx.eval(x)
            comp = mx.compile(softmax_mx)
            fns["mlx"] = lambda: mx.eval(softmax_mx(x))
            fns["mlx_compile"] = lambda: mx.eval(comp(x))
            fns["mlx_fast"] = lambda: mx.eval(mx.softmax(x, axis=1))
            fns["numpy"] = lambda: softmax_np(x_np)
        elif kind == "mlp":
            ps_np = [normal(64, 784), normal(784, 512) * 0.05, normal(512), normal(512, 10) * 0.05, normal(10)]
            fns = model_cases(mlp_mx, mlp_np, ps_np)
        elif kind == "block":
            fns = model_cases(block_mx, block_np, block_params())
        elif kind == "blocksplit":
            # bench/block.go's blockSteps: the call (graph construction, or
            # the compiled function's replay) and mx.eval timed apart.
            ps = [mx.array(p) for p in block_params()]
            mx.eval(ps)
            for peer, f in (("mlx", block_mx), ("mlx_compile", mx.compile(block_mx))):
                calls, evals, totals = [], [], []
                for i in range(202):
                    t0 = time.perf_counter()
                    y = f(*ps)
                    t1 = time.perf_counter()
                    mx.eval(y)
                    t2 = time.perf_counter()
                    if i >= 2:
                        calls.append(t1 - t0)
                        evals.append(t2 - t1)
                        totals.append(t2 - t0)
                for name, ts in (("call", calls), ("eval", evals), ("total", totals)):
                    ts.sort()
                    out[f"{case}/{peer}_{name}"] = ts[(len(ts) - 1) // 2]
            continue
        elif kind in ("readback", "readinto"):  # readinto: Emily reads into a reused slice
            x_np = normal(int(arg))
            x = mx.array(x_np)
            mx.eval(x)
            fns["mlx"] = lambda: np.array(x)
            fns["numpy"] = lambda: x_np.copy()
        else:
            raise SystemExit(f"peers.py: unknown case {case}")
        for peer, fn in fns.items():
            out[f"{case}/{peer}"] = timeit(fn, args.budget)
            if args.peak and peer != "numpy":
                before = mx.get_active_memory()
                mx.reset_peak_memory()
                fn()
                out[f"{case}/{peer}/peak"] = mx.get_peak_memory() - before
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
