#!/usr/bin/env python3
"""Tiny random-weight Llama-family models and their logits, for
TestTinyVariantsMatchNumPy (models/llama/variants_test.go).

    python models/llama/testdata/tiny_reference.py OUTDIR

For each variant this draws Hugging Face-layout weights, converts them to
GGUF's layout as llama.cpp's convert_hf_to_gguf.py does (attn_q/attn_k
rows permuted for llama, rope_freqs.weight for Llama 3's rope scaling,
metadata under the architecture's prefix) and writes NAME.npz (the GGUF
tensors by GGUF name) and NAME.json (the metadata, the tokens, and the
logits at every position). The logits come from a float64 NumPy forward
in Hugging Face's formulation (LlamaForCausalLM / Qwen2ForCausalLM:
rotate_half RoPE on the unpermuted weights, HF's llama3 and linear
inv_freq scaling, repeat_kv for GQA, a causal softmax), so the Go side
is checked against an implementation that shares none of its choices.
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

VARIANTS = [
    # Llama 2-style: multi-head attention, separate output head.
    dict(name="llama2", arch="llama", hidden=32, heads=4, kv=4, ff=64, layers=2, vocab=61,
         theta=10000.0, eps=1e-5, tied=False, ctx=64),
    # Llama 2 with linear rope scaling (rope.scaling.type linear).
    dict(name="llama2-linear", arch="llama", hidden=32, heads=4, kv=4, ff=64, layers=2, vocab=61,
         theta=10000.0, eps=1e-6, tied=False, ctx=64, scaling=dict(rope_type="linear", factor=4.0)),
    # Llama 3: GQA, rope_theta 500000, llama3 rope scaling, tied head (3.2).
    dict(name="llama3", arch="llama", hidden=64, heads=4, kv=2, ff=96, layers=2, vocab=67,
         theta=500000.0, eps=1e-5, tied=True, ctx=64,
         scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                      original_max_position_embeddings=64)),
    # TinyLlama: 4 query heads per KV head, float16 tensors as its GGUF has.
    dict(name="tinyllama", arch="llama", hidden=64, heads=8, kv=2, ff=80, layers=3, vocab=53,
         theta=10000.0, eps=1e-5, tied=False, ctx=64, f16=True),
    # Qwen2: q/k/v biases, NEOX rope (unpermuted), rope_theta 1e6, tied.
    dict(name="qwen2", arch="qwen2", hidden=32, heads=4, kv=2, ff=48, layers=2, vocab=59,
         theta=1000000.0, eps=1e-6, tied=True, ctx=64, bias=True),
]
TOKENS = 40  # positions scored (the Go side crosses cache buckets of 8, 16, 32, 64)


def permute(w, n_head):
    # convert_hf_to_gguf.py's LlamaModel.permute (for k, n_head = n_kv).
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def hf_inv_freq(v, hd):
    inv = 1.0 / (v["theta"] ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    s = v.get("scaling")
    if s is None:
        return inv
    if s["rope_type"] == "linear":
        return inv / s["factor"]
    # transformers' _compute_llama3_parameters.
    factor, lo, hi = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    lo_wl, hi_wl = old / lo, old / hi
    wavelen = 2 * math.pi / inv
    inv_l = np.where(wavelen > lo_wl, inv / factor, inv)
    smooth = (old / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    medium = ~(wavelen < hi_wl) & ~(wavelen > lo_wl)
    return np.where(medium, smoothed, inv_l)


def gguf_rope_freqs(v, hd):
    # convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors (llama3).
    s = v["scaling"]
    freqs = 1.0 / (v["theta"] ** (np.arange(0, hd, 2, dtype=np.float32) / hd))
    factor, lo, hi = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    lo_wl, hi_wl = old / lo, old / hi
    out = []
    for f in freqs:
        wl = 2 * math.pi / f
        if wl < hi_wl:
            out.append(1)
        elif wl > lo_wl:
            out.append(factor)
        else:
            sm = (old / wl - lo) / (hi - lo)
            out.append(1 / ((1 - sm) / factor + sm))
    return np.array(out, dtype=np.float32)


def rms(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def forward(v, hf, tokens):
    hd = v["hidden"] // v["heads"]
    T = len(tokens)
    inv = hf_inv_freq(v, hd)
    ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
    emb = np.concatenate([ang, ang], -1)
    cos, sin = np.cos(emb), np.sin(emb)

    def rot(x):  # (heads, T, hd), HF's rotate_half
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return x * cos + np.concatenate([-x2, x1], -1) * sin

    x = hf["embed"][tokens]
    causal = np.triu(np.full((T, T), -np.inf), 1)
    for L in hf["layers"]:
        h = rms(x, L["in_norm"], v["eps"])
        q, k, vv = h @ L["q"].T, h @ L["k"].T, h @ L["v"].T
        if v.get("bias"):
            q, k, vv = q + L["qb"], k + L["kb"], vv + L["vb"]
        q = rot(q.reshape(T, v["heads"], hd).transpose(1, 0, 2))
        k = rot(k.reshape(T, v["kv"], hd).transpose(1, 0, 2))
        vv = vv.reshape(T, v["kv"], hd).transpose(1, 0, 2)
        rep = v["heads"] // v["kv"]
        k, vv = np.repeat(k, rep, 0), np.repeat(vv, rep, 0)  # repeat_kv
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + causal
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        a = (p @ vv).transpose(1, 0, 2).reshape(T, -1)
        x = x + a @ L["o"].T
        h = rms(x, L["post_norm"], v["eps"])
        g = h @ L["gate"].T
        x = x + ((g / (1 + np.exp(-g))) * (h @ L["up"].T)) @ L["down"].T
    x = rms(x, hf["norm"], v["eps"])
    return x @ (hf["embed"] if v["tied"] else hf["lm_head"]).T


def make(v, rng, out):
    hd = v["hidden"] // v["heads"]
    E, F, V = v["hidden"], v["ff"], v["vocab"]
    dt = np.float16 if v.get("f16") else np.float32
    r = lambda *s, scale=0.25: (rng.standard_normal(s) * scale).astype(dt).astype(np.float64)
    hf = {"embed": r(V, E, scale=1.0), "norm": 1 + r(E, scale=0.1), "layers": []}
    if not v["tied"]:
        hf["lm_head"] = r(V, E)
    for _ in range(v["layers"]):
        L = {"in_norm": 1 + r(E, scale=0.1), "post_norm": 1 + r(E, scale=0.1),
             "q": r(v["heads"] * hd, E), "k": r(v["kv"] * hd, E), "v": r(v["kv"] * hd, E),
             "o": r(E, v["heads"] * hd), "gate": r(F, E), "up": r(F, E), "down": r(E, F)}
        if v.get("bias"):
            L.update(qb=r(v["heads"] * hd), kb=r(v["kv"] * hd), vb=r(v["kv"] * hd))
        hf["layers"].append(L)

    # GGUF names and layout.
    g = {"token_embd.weight": hf["embed"], "output_norm.weight": hf["norm"]}
    if not v["tied"]:
        g["output.weight"] = hf["lm_head"]
    llama = v["arch"] == "llama"
    for i, L in enumerate(hf["layers"]):
        p = f"blk.{i}."
        g[p + "attn_norm.weight"] = L["in_norm"]
        g[p + "ffn_norm.weight"] = L["post_norm"]
        g[p + "attn_q.weight"] = permute(L["q"], v["heads"]) if llama else L["q"]
        g[p + "attn_k.weight"] = permute(L["k"], v["kv"]) if llama else L["k"]
        g[p + "attn_v.weight"] = L["v"]
        g[p + "attn_output.weight"] = L["o"]
        g[p + "ffn_gate.weight"], g[p + "ffn_up.weight"], g[p + "ffn_down.weight"] = L["gate"], L["up"], L["down"]
        if v.get("bias"):
            g[p + "attn_q.bias"], g[p + "attn_k.bias"], g[p + "attn_v.bias"] = L["qb"], L["kb"], L["vb"]
    # Norms stay float32, as convert_hf_to_gguf.py keeps 1-d tensors.
    g = {k: a.astype(np.float32 if a.ndim == 1 else dt) for k, a in g.items()}
    a = v["arch"]
    meta = {
        "general.architecture": ["str", a], "general.name": ["str", "tiny-" + v["name"]],
        f"{a}.block_count": ["u32", v["layers"]], f"{a}.embedding_length": ["u32", E],
        f"{a}.feed_forward_length": ["u32", F], f"{a}.attention.head_count": ["u32", v["heads"]],
        f"{a}.attention.head_count_kv": ["u32", v["kv"]], f"{a}.context_length": ["u32", v["ctx"]],
        f"{a}.rope.freq_base": ["f32", v["theta"]], f"{a}.rope.dimension_count": ["u32", hd],
        f"{a}.attention.layer_norm_rms_epsilon": ["f32", v["eps"]],
        f"{a}.vocab_size": ["u32", V], "tokenizer.ggml.eos_token_id": ["u32", V - 1],
    }
    s = v.get("scaling")
    if s and s["rope_type"] == "linear":
        meta[f"{a}.rope.scaling.type"] = ["str", "linear"]
        meta[f"{a}.rope.scaling.factor"] = ["f32", s["factor"]]
    if s and s["rope_type"] == "llama3":
        g["rope_freqs.weight"] = gguf_rope_freqs(v, hd)
    # Tokens avoid the EOS id, so the Go side's greedy run is never cut short.
    tokens = rng.integers(0, V - 1, TOKENS).tolist()
    logits = forward(v, hf, np.array(tokens))
    np.savez(out / f"{v['name']}.npz", **g)
    (out / f"{v['name']}.json").write_text(json.dumps(
        {"meta": meta, "tokens": tokens, "logits": logits.astype(np.float32).tolist()}))


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20)
    for v in VARIANTS:
        make(v, rng, out)
    (out / "variants.json").write_text(json.dumps([v["name"] for v in VARIANTS]))


if __name__ == "__main__":
    main()
