"""minilm_torch.py: all-MiniLM-L6-v2 on torch, the peer of bench/minilm.

bench/minilm (Go) starts this once and sends it one JSON request a line on
stdin; each answer is one JSON line on stdout, so that Emily's cases and
torch's alternate in one run (the machine's load moves both alike):

    {"case": "batch=1", "budget": 1.5,
     "batches": [{"texts": [...], "ids": [[...]], "mask": [[...]]}, ...]}
      -> {"calls": k, "sentences": n, "seconds": s, "embeddings": [[...]]}

Every call embeds one batch, cycling through the request's batches until
the budget (seconds) is spent (at least 3 calls, at least one cycle); the
first request of a case embeds each batch once first, untimed (warm-up).
"embeddings" are the first batch's, which bench/minilm checks against
Emily's.

Two implementations (--impl):
  st     sentence-transformers' SentenceTransformer.encode(texts) on the
         model directory: tokenization, forward, pooling, normalisation,
         the result as NumPy (the default when sentence-transformers is
         importable).
  torch  the same BERT forward, mean pooling and L2 normalisation written
         in plain torch on the weights of model.safetensors (read here,
         no safetensors package), on the token ids bench/minilm sends
         (Emily's tokenizer, which matches the reference ids): for a
         machine with torch and nothing else. Tokenization is not timed.

    python bench/minilm_torch.py --model .deps/minilm --device cuda --impl torch
"""
import argparse
import json
import math
import struct
import sys
import time


def read_safetensors(path, torch):
    """The tensors of a .safetensors file: an 8-byte header length, a JSON
    header of dtype, shape and byte offsets, then the raw little-endian data."""
    dtypes = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = bytearray(f.read())
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        out[name] = torch.frombuffer(data[a:b], dtype=dtypes[t["dtype"]]).reshape(t["shape"]).clone()
    return out


class PlainBert:
    """BertModel's forward (absolute positions, token type 0, exact GELU,
    post-norm layers), mean pooling over the mask and L2 normalisation."""

    def __init__(self, model_dir, device, torch):
        self.torch = torch
        with open(f"{model_dir}/config.json") as f:
            c = json.load(f)
        self.heads, self.eps, self.layers = c["num_attention_heads"], c["layer_norm_eps"], c["num_hidden_layers"]
        w = read_safetensors(f"{model_dir}/model.safetensors", torch)
        self.w = {k.removeprefix("bert."): v.to(device) for k, v in w.items()}
        self.device = device

    def __call__(self, ids, mask):
        torch, w, F = self.torch, self.w, self.torch.nn.functional
        b, l = ids.shape
        h = w["embeddings.word_embeddings.weight"].shape[1]
        d = h // self.heads
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:l] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = F.layer_norm(x, (h,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        keep = mask.bool()[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t, name):
                return F.linear(t, w[p + name + ".weight"], w[p + name + ".bias"])

            def split(t):
                return t.view(b, l, self.heads, d).transpose(1, 2)

            q, k, v = (split(lin(x, "attention.self." + n)) for n in ("query", "key", "value"))
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=1 / math.sqrt(d))
            a = a.transpose(1, 2).reshape(b, l, h)
            x = F.layer_norm(lin(a, "attention.output.dense") + x, (h,),
                             w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            f = lin(F.gelu(lin(x, "intermediate.dense")), "output.dense")
            x = F.layer_norm(f + x, (h,), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        m = mask.to(x.dtype)[:, :, None]
        e = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return F.normalize(e, p=2, dim=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="the model directory (.deps/minilm)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--impl", default="auto", choices=["auto", "st", "torch"])
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    args = ap.parse_args()

    import torch

    if args.threads > 0:
        torch.set_num_threads(args.threads)

    impl = args.impl
    if impl == "auto":
        try:
            import sentence_transformers  # noqa: F401
            impl = "st"
        except ImportError:
            impl = "torch"
    torch.set_grad_enabled(False)
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    if impl == "st":
        import sentence_transformers
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(args.model, device=args.device)
        version = f"sentence-transformers {sentence_transformers.__version__}"

        def embed(req):
            return model.encode(req["texts"], batch_size=len(req["texts"]), convert_to_numpy=True)
    else:
        model = PlainBert(args.model, args.device, torch)
        version = "plain torch (bench/minilm_torch.py)"

        def embed(req):
            ids = torch.tensor(req["ids"], dtype=torch.int64, device=args.device)
            mask = torch.tensor(req["mask"], dtype=torch.int64, device=args.device)
            e = model(ids, mask).cpu().numpy()  # ends with a device sync and a readback
            return e

    name = torch.cuda.get_device_name() if args.device.startswith("cuda") else f"{torch.get_num_threads()} threads"
    hello = {"peer": f"{version}, torch {torch.__version__}, {args.device} ({name})"}
    print(json.dumps(hello), flush=True)

    warm = set()
    for line in sys.stdin:
        req = json.loads(line)
        batches = req["batches"]
        if req["case"] not in warm:  # untimed: every shape once
            for bt in batches:
                embed(bt)
            warm.add(req["case"])
        first = embed(batches[0])
        sync()
        calls = sentences = 0
        start = time.perf_counter()
        while calls < max(3, len(batches)) or time.perf_counter() - start < req["budget"]:
            bt = batches[calls % len(batches)]
            embed(bt)
            calls, sentences = calls + 1, sentences + len(bt["texts"])
        sync()
        seconds = time.perf_counter() - start
        print(json.dumps({"calls": calls, "sentences": sentences, "seconds": seconds,
                          "embeddings": [[float(v) for v in row] for row in first]}), flush=True)

if __name__ == "__main__":
    main()
