"""torch_peer.py: bench/train's models in PyTorch, from the initial weights
Emily saved (a safetensors file, read here with torch alone), on the same
batch, with the same optimizer (torch's Adam and AdamW bias-correct, MLX's
do not: a few scalar operations a step). One step is zero_grad, the loss,
backward, (clip,) the optimizer step.

--mode compile: the model goes through torch.compile (its backward is
compiled with it) and so does the optimizer step (with the clip); when
compiling or the first compiled steps fail (no C++ compiler for
Inductor, no Triton on the GPU), the peer falls back to eager and says so
in "mode". --mode eager: eager only.

Prints {"seconds": median seconds per step, "loss": the first step's
loss, "mode": "torch.compile" or "eager (...)"}.
"""
import argparse
import json
import math
import struct
import sys
import time


def load_safetensors(torch, path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    dtypes = {"F32": torch.float32, "I32": torch.int32, "I64": torch.int64, "F16": torch.float16, "BF16": torch.bfloat16}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        buf = bytearray(data[8 + n + a : 8 + n + b])
        out[name] = torch.frombuffer(buf, dtype=dtypes[meta["dtype"]]).reshape(meta["shape"]).clone()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu", help="Emily's device (unused: --torch-device)")
    ap.add_argument("--torch-device", default="cpu")
    ap.add_argument("--mode", default="compile", choices=["compile", "eager"])
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--model", required=True)
    ap.add_argument("--opt", default="adam")
    ap.add_argument("--weights", required=True)
    ap.add_argument("--batch", required=True)
    args = ap.parse_args()
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.torch_device)
    W = load_safetensors(torch, args.weights)
    data = load_safetensors(torch, args.batch)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Linear(64, 256), nn.Linear(256, 256), nn.Linear(256, 10)

        def forward(self, x):
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.head = nn.Linear(4 * 4 * 32, 10)

        def forward(self, x):
            h = F.relu(self.conv2(F.relu(self.conv1(x))))
            h = F.max_pool2d(h, 2, 2)
            return self.head(h.flatten(1))

    vocab, dims, heads, layers = 96, 64, 4, 2
    hd = dims // heads
    # mlx.nn.RoPE(hd): the two halves rotated, frequencies base^(-i/(hd/2)).
    inv = 10000.0 ** (-torch.arange(0, hd // 2, dtype=torch.float32) / (hd // 2))

    class Attention(nn.Module):
        def __init__(self, L):
            super().__init__()
            self.query_proj = nn.Linear(dims, dims, bias=False)
            self.key_proj = nn.Linear(dims, dims, bias=False)
            self.value_proj = nn.Linear(dims, dims, bias=False)
            self.out_proj = nn.Linear(dims, dims, bias=False)
            theta = torch.arange(L, dtype=torch.float32)[:, None] * inv[None, :]
            self.register_buffer("cos", theta.cos(), persistent=False)
            self.register_buffer("sin", theta.sin(), persistent=False)

        def rope(self, t):
            a, b = t[..., : hd // 2], t[..., hd // 2 :]
            return torch.cat([a * self.cos - b * self.sin, a * self.sin + b * self.cos], -1)

        def forward(self, x):
            B, L, _ = x.shape

            def split(t):
                return t.reshape(B, L, heads, hd).transpose(1, 2)

            q, k, v = split(self.query_proj(x)), split(self.key_proj(x)), split(self.value_proj(x))
            q, k = self.rope(q), self.rope(k)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / math.sqrt(hd))
            return self.out_proj(o.transpose(1, 2).reshape(B, L, dims))

    class Block(nn.Module):
        def __init__(self, L):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dims), nn.LayerNorm(dims)
            self.attn = Attention(L)
            self.fc1, self.fc2 = nn.Linear(dims, 4 * dims), nn.Linear(4 * dims, dims)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self, L):
            super().__init__()
            self.embed = nn.Embedding(vocab, dims)
            self.blocks = nn.ModuleList([Block(L) for _ in range(layers)])
            self.ln = nn.LayerNorm(dims)

        def forward(self, ids):
            x = self.embed(ids)
            for b in self.blocks:
                x = b(x)
            return self.ln(x) @ self.embed.weight.t()  # tied

    x, y = data["x"], data["y"].long()
    if args.model == "mlp":
        model = MLP()
    elif args.model == "cnn":
        model = CNN()
        # Emily's convolutions are channels-last (N, H, W, C) with weights
        # (out, KH, KW, in); torch's are (N, C, H, W) and (out, in, KH, KW).
        # The head's columns are reordered from Emily's HWC flattening to
        # torch's CHW, so the model is the same function.
        x = x.permute(0, 3, 1, 2).contiguous()
        for k in ("conv1.weight", "conv2.weight"):
            W[k] = W[k].permute(0, 3, 1, 2).contiguous()
        W["head.weight"] = W["head.weight"].reshape(10, 4, 4, 32).permute(0, 3, 1, 2).reshape(10, 512).contiguous()
    elif args.model == "gpt":
        model = GPT(x.shape[1])
        x = x.long()
    else:
        raise SystemExit(f"torch_peer.py: unknown --model {args.model}")
    # Emily's names are torch's once its block list is called blocks and
    # the per-block fields ln1/ln2/attn/fc1/fc2 (bench/train/gpt.go).
    missing, unexpected = model.load_state_dict(W, strict=False)
    if missing or unexpected:
        raise SystemExit(f"torch_peer.py: weights do not fit: missing {missing}, unexpected {unexpected}")
    model.to(dev)
    x, y = x.to(dev), y.to(dev)
    params = list(model.parameters())
    clip = None
    if args.opt == "adam":
        make_opt = lambda: torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    elif args.opt == "adamw-clip1":
        make_opt = lambda: torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
        clip = 1.0
    else:
        raise SystemExit(f"torch_peer.py: unknown --opt {args.opt}")
    init = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def build(compiled):
        model.load_state_dict(init)  # the initial weights again
        opt = make_opt()
        fwd = torch.compile(model) if compiled else model

        def update():
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(params, clip)
            opt.step()

        upd = torch.compile(update) if compiled else update

        def step():
            opt.zero_grad(set_to_none=True)
            logits = fwd(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            loss.backward()
            upd()
            return loss.detach()

        return step

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    mode = "eager"
    step = None
    if args.mode == "compile":
        try:
            step = build(True)
            first = step().item()
            step()
            sync()
            mode = "torch.compile"
        except Exception as e:  # noqa: BLE001 (any failure of the compiler stack)
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:120]
            print(f"torch_peer: torch.compile failed for {args.model}, eager instead: {type(e).__name__}: {reason}", file=sys.stderr)
            mode = f"eager (torch.compile failed: {type(e).__name__})"
            torch._dynamo.reset()
            step = None
    if step is None:
        step = build(False)
        first = step().item()
        step()
        sync()

    def call():
        step()
        sync()

    times = []
    start = time.perf_counter()
    while len(times) < 5 or time.perf_counter() - start < args.budget:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(json.dumps({"seconds": times[(len(times) - 1) // 2], "loss": first, "mode": mode,
                      "threads": torch.get_num_threads(), "torch": torch.__version__}))


main()
