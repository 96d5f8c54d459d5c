"""mlxlm.py: mlx-lm's side of `make bench-generate`.

Reads the prompt's token ids (a JSON list) on stdin and times mlx-lm's own
decode loop, mlx_lm.generate.generate_step (it pipelines with
mx.async_eval, as mlx_lm.generate does, and does not stop at the
end-of-generation ids), on a model directory made by
scripts/gguf-to-mlx.py from the same GGUF:

    python bench/generate/mlxlm.py --model /tmp/smollm2-mlx --device cpu --decode 128 < ids.json

prints one JSON object with prefill_tps, decode_tps, ttft_warm_ms,
ttft_cold_ms and peak_mb, the keys bench/generate/main.go reads.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import mlx.core as mx
from mlx_lm.utils import load_model
from mlx_lm.generate import generate_step


def first_token(model, ids):
    start = time.perf_counter()
    gen = generate_step(mx.array(ids), model, max_tokens=1)
    tok, _ = next(gen)
    _ = int(tok)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--decode", type=int, default=128)
    args = ap.parse_args()
    mx.set_default_device(mx.gpu if args.device == "gpu" else mx.cpu)
    ids = json.load(sys.stdin)
    # The weights only: the prompt comes as ids (the same ids every column
    # gets), so the directory's tokenizer is not loaded.
    model, _ = load_model(Path(args.model))
    mx.reset_peak_memory()
    cold = first_token(model, ids)
    warm = first_token(model, ids)
    # Decode: a short prompt, then decode+1 tokens; the rate counts the
    # tokens after the first, timed from the first token's arrival.
    n = args.decode + 1
    gen = generate_step(mx.array(ids[:16]), model, max_tokens=n)
    count, t0 = 0, None
    for tok, _ in gen:
        _ = int(tok)
        count += 1
        if count == 1:
            t0 = time.perf_counter()
        if count == n:
            break
    decode = (count - 1) / (time.perf_counter() - t0)
    print(json.dumps({"prefill_tps": len(ids) / warm, "decode_tps": decode, "ttft_warm_ms": warm * 1e3,
                      "ttft_cold_ms": cold * 1e3, "peak_mb": mx.get_peak_memory() / 1e6}))


if __name__ == "__main__":
    main()
