"""peer.py: bench/train's models through mlx.nn and mlx.optimizers, one
compiled step with the model and optimizer state as implicit inputs and
outputs (mx.compile(..., inputs=state, outputs=state)), from the initial
weights Emily saved. Prints {"seconds": median seconds per step, "loss":
the first step's loss, "mode": "mx.compile"}.
"""
import argparse
import json
import math
import sys
import time
from functools import partial


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--model", required=True)
    ap.add_argument("--opt", default="adam")
    ap.add_argument("--weights", required=True)
    ap.add_argument("--batch", required=True)
    ap.add_argument("--split", action="store_true", help="also time the compiled call and the mx.eval after it apart (bench/train's -split)")
    args = ap.parse_args()
    sys.path.insert(0, args.site)
    import mlx.core as mx
    import mlx.nn as nn
    import mlx.optimizers as optim

    mx.set_default_device(mx.gpu if args.device == "gpu" else mx.cpu)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Linear(64, 256), nn.Linear(256, 256), nn.Linear(256, 10)

        def __call__(self, x):
            return self.l3(nn.relu(self.l2(nn.relu(self.l1(x)))))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.head = nn.Linear(4 * 4 * 32, 10)
            self.pool = nn.MaxPool2d(2, 2)

        def __call__(self, x):
            h = nn.relu(self.conv2(nn.relu(self.conv1(x))))
            h = self.pool(h)
            return self.head(h.reshape(h.shape[0], -1))

    # The tiny GPT (bench/train/gpt.go, notebooks/tiny-gpt.ipynb): Emily's
    # nn.MultiHeadAttention is mlx.nn.MultiHeadAttention's projections
    # with nn.RoPE on each head's queries and keys and the fused causal
    # attention.
    vocab, dims, heads, layers = 96, 64, 4, 2

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.query_proj = nn.Linear(dims, dims, bias=False)
            self.key_proj = nn.Linear(dims, dims, bias=False)
            self.value_proj = nn.Linear(dims, dims, bias=False)
            self.out_proj = nn.Linear(dims, dims, bias=False)
            self.rope = nn.RoPE(dims // heads)

        def __call__(self, x):
            B, L, _ = x.shape

            def split(t):
                return t.reshape(B, L, heads, -1).transpose(0, 2, 1, 3)

            q, k, v = split(self.query_proj(x)), split(self.key_proj(x)), split(self.value_proj(x))
            q, k = self.rope(q), self.rope(k)
            o = mx.fast.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(dims // heads), mask="causal")
            return self.out_proj(o.transpose(0, 2, 1, 3).reshape(B, L, -1))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dims), nn.LayerNorm(dims)
            self.attn = Attention()
            self.fc1, self.fc2 = nn.Linear(dims, 4 * dims), nn.Linear(4 * dims, dims)

        def __call__(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.fc2(nn.gelu(self.fc1(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, dims)
            self.blocks = [Block() for _ in range(layers)]
            self.ln = nn.LayerNorm(dims)

        def __call__(self, ids):
            x = self.embed(ids)
            for b in self.blocks:
                x = b(x)
            return self.embed.as_linear(self.ln(x))

    model = {"mlp": MLP, "cnn": CNN, "gpt": GPT}[args.model]()
    model.load_weights(list(mx.load(args.weights).items()))
    data = mx.load(args.batch)
    x, y = data["x"], data["y"]
    clip = None
    if args.opt == "adam":
        opt = optim.Adam(1e-3)
    elif args.opt == "adamw-clip1":
        opt, clip = optim.AdamW(1e-3), 1.0
    else:
        raise SystemExit(f"peer.py: unknown --opt {args.opt}")

    def loss_fn(m, x, y):
        logits = m(x)
        return nn.losses.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="mean")

    state = [model.state, opt.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def step(x, y):
        loss, grads = nn.value_and_grad(model, loss_fn)(model, x, y)
        if clip is not None:
            grads, _ = optim.clip_grad_norm(grads, clip)
        opt.update(model, grads)
        return loss

    def call():
        loss = step(x, y)
        mx.eval(loss, state)
        return loss

    first = call().item()
    call()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < args.budget:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    times.sort()
    res = {"seconds": times[(len(times) - 1) // 2], "loss": first, "mode": "mx.compile"}
    if args.split:
        calls, evals, totals = [], [], []
        for _ in range(200):
            t0 = time.perf_counter()
            loss = step(x, y)
            t1 = time.perf_counter()
            mx.eval(loss, state)
            t2 = time.perf_counter()
            calls.append(t1 - t0)
            evals.append(t2 - t1)
            totals.append(t2 - t0)
        for key, ts in (("call", calls), ("eval", evals), ("seconds", totals)):
            ts.sort()
            res[key] = ts[(len(ts) - 1) // 2]
    print(json.dumps(res))


main()
