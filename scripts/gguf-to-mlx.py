#!/usr/bin/env python3
"""Convert a Llama-family GGUF (as `make llm` fetches) into an mlx-lm model
directory, on the same weights: MLX's own GGUF reader (mx.load) returns
Q4_0/Q4_1/Q8_0 tensors as the affine (weight uint32, scales, biases)
triples mlx-lm's quantized layers take, so nothing is requantized.

    python scripts/gguf-to-mlx.py .deps/llm.gguf /tmp/smollm2-mlx [--float32]

GGUF names map to mlx-lm's llama names; convert_hf_to_gguf.py permuted the
rows of attn_q/attn_k for llama.cpp's adjacent-pair RoPE, and the
inverse permutation here restores Hugging Face's layout, so mlx-lm runs
its own (non-traditional) RoPE on them: an independent check of models/
llama, which keeps the GGUF layout and rotates adjacent pairs.

--float32 stores scales/biases (and float16 tensors) as float32 (exact),
so mlx-lm computes in float32 as models/llama does; without it they stay
float16 and mlx-lm's activations are float16.

Needs mlx and mlx-lm (pip install "mlx[cpu]==<.deps/mlx's version>" mlx-lm).
"""
import json
import sys
from pathlib import Path

import mlx.core as mx


def scalar(v):
    if isinstance(v, mx.array):
        return v.item() if v.ndim == 0 else v.tolist()
    return v


def unpermute(w, n_head):
    # Inverse of convert_hf_to_gguf.py's LlamaModel.permute on the rows:
    # GGUF rows (head, i, half) back to Hugging Face's (head, half, i).
    rows = w.shape[0]
    return w.reshape(n_head, rows // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    f32 = "--float32" in sys.argv
    src, dst = Path(args[0]), Path(args[1])
    weights, meta = mx.load(str(src), return_metadata=True)
    arch = scalar(meta["general.architecture"])
    if arch not in ("llama", "qwen2"):
        sys.exit(f"general.architecture {arch!r}: only llama and qwen2")
    m = lambda k, d=None: scalar(meta.get(f"{arch}.{k}", d))
    heads, kv = m("attention.head_count"), m("attention.head_count_kv", m("attention.head_count"))
    hidden, layers = m("embedding_length"), m("block_count")
    head_dim = m("attention.key_length", hidden // heads)
    names = {
        "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
        "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
        "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm",
    }
    out, quant = {}, {}
    for name, w in weights.items():
        base, _, kind = name.rpartition(".")
        parts = base.split(".")
        if parts[0] == "blk":
            mod = f"model.layers.{parts[1]}.{names[parts[2]]}"
            if arch == "llama" and parts[2] in ("attn_q", "attn_k"):
                w = unpermute(w, heads if parts[2] == "attn_q" else kv)
        elif base == "token_embd":
            mod = "model.embed_tokens"
        elif base == "output_norm":
            mod = "model.norm"
        elif base == "output":
            mod = "lm_head"
        else:
            sys.exit(f"tensor {name}: no mlx-lm name for it")
        if f32 and w.dtype == mx.float16:
            w = w.astype(mx.float32)
        out[f"{mod}.{kind}"] = w
        if kind == "scales":
            wq = weights[f"{base}.weight"]
            in_features = w.shape[1] * 32
            quant[mod] = {"group_size": 32, "bits": wq.shape[1] * 32 // in_features}
    vocab = out["model.embed_tokens.weight"].shape[0]
    cfg = {
        "model_type": "qwen2" if arch == "qwen2" else "llama",
        "hidden_size": hidden, "num_hidden_layers": layers,
        "intermediate_size": m("feed_forward_length"),
        "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": head_dim,
        "rms_norm_eps": m("attention.layer_norm_rms_epsilon"),
        "vocab_size": m("vocab_size", vocab), "rope_theta": m("rope.freq_base", 10000.0),
        "max_position_embeddings": m("context_length"),
        "tie_word_embeddings": "lm_head.weight" not in out, "rope_traditional": False,
    }
    if quant:
        # The default (the layers' 4 bits) and each module's own: SmolLM2's
        # embedding is Q8_0, its layers Q4_1.
        bits = max(set(q["bits"] for q in quant.values()), key=lambda b: sum(q["bits"] == b for q in quant.values()))
        cfg["quantization"] = {"group_size": 32, "bits": bits, **quant}
    dst.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(dst / "model.safetensors"), out, metadata={"format": "mlx"})
    (dst / "config.json").write_text(json.dumps(cfg, indent=2))
    print(f"{src} -> {dst}: {len(out)} tensors, {len(quant)} quantized modules")


if __name__ == "__main__":
    main()
