#!/usr/bin/env python3
"""Greedy continuations from mlx-lm, the reference of TestSmolLM2MatchesMLXLM.

    python scripts/gguf-to-mlx.py .deps/llm.gguf /tmp/smollm2-mlx --float32
    python models/llama/testdata/mlx_reference.py .deps/llm.gguf /tmp/smollm2-mlx \
        > models/llama/testdata/reference.json

The prompts are token ids, so no tokenizer of ours is in the loop: they
come from a byte-level BPE built here with Hugging Face's `tokenizers`
from the GGUF's own vocabulary and merges, with SmolLM2's pre-tokenizer
(digits one by one, then GPT-2's byte-level split). mlx-lm (0.32.2, MLX
0.32.4 CPU, the version .deps/mlx has) runs them greedily (argmax, as
its default sampler at temperature 0) for 32 tokens. Each step also
records the gap between the two largest logits, so a divergence can be
told from a near-tie.
"""
import json
import sys
from pathlib import Path

import mlx.core as mx
import mlx_lm
from mlx_lm.generate import generate_step
from tokenizers import Tokenizer, decoders, models, pre_tokenizers

PROMPTS = [
    ("plain", "The capital of France is"),
    ("chat", "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
             "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"),
    ("code", "def fibonacci(n):\n    "),
    ("story", "Once upon a time, in a small village by the sea,"),
    ("list", "Three primary colors are:\n1."),
    ("chat-long", "<|im_start|>user\nWrite a short poem about the moon, the stars, the tides of the ocean and "
                  "the sailors who follow them home through the long winter nights of 1912.<|im_end|>\n"
                  "<|im_start|>assistant\n"),
]
N = 32


def tokenizer(meta):
    tokens = meta["tokenizer.ggml.tokens"]
    vocab = {t: i for i, t in enumerate(tokens)}
    merges = [tuple(m.split(" ", 1)) for m in meta["tokenizer.ggml.merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    types = meta["tokenizer.ggml.token_type"].tolist()
    # Control tokens (type 3: <|im_start|>, …) match whole.
    tok.add_special_tokens([t for t, ty in zip(tokens, types) if ty == 3])
    return tok


def main():
    gguf, model_dir = sys.argv[1], sys.argv[2]
    _, meta = mx.load(gguf, return_metadata=True)
    tok = tokenizer(meta)
    model = mlx_lm.utils.load_model(Path(model_dir))[0]
    out = {"source": "mlx-lm %s, MLX %s (cpu), %s via scripts/gguf-to-mlx.py --float32" % (
        mlx_lm.__version__, mx.__version__, gguf), "max_tokens": N, "prompts": []}
    for name, text in PROMPTS:
        ids = tok.encode(text).ids
        gen, gaps = [], []
        for token, logprobs in generate_step(mx.array(ids), model, max_tokens=N):
            top = mx.sort(logprobs)[-2:].tolist()
            gen.append(int(token))
            gaps.append(round(top[1] - top[0], 5))
        out["prompts"].append({"name": name, "text": text, "prompt": ids, "tokens": gen,
                               "text_out": tok.decode(gen), "top2_gap": gaps})
        print(name, repr(tok.decode(gen)), "min gap %.4f" % min(gaps), file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
