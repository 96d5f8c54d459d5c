"""NumPy reference of models/sample: the distribution a Sampler draws from.

Reads a JSON list of cases from stdin, each {"logits": [[...]], "counts":
[[...]], "settings": {...}} (settings spelled as the Go struct), and
writes to stdout, per case, {"logprobs": [[...]]} (null where a token is
filtered out) and "margin": the smallest distance of any keep-or-drop
decision from its threshold (top-p's mass before a token against p,
min-p's logit against its cut, top-k's logit against the k-th), so the Go
test can insist that no decision is a float rounding away from flipping.

The definitions are the package doc's (llama.cpp's chain): logit bias,
penalties (repetition: divide positive / multiply negative logits of seen
tokens; presence and frequency: OpenAI's), then top-k, top-p, min-p on the
untempered logits, then temperature.
"""
import json
import math
import sys

import numpy as np


def process(x, counts, s):
    x = x.astype(np.float64).copy()
    for tok, b in (s.get("LogitBias") or {}).items():
        x[:, int(tok)] += b
    seen = counts > 0
    r = s.get("RepetitionPenalty", 0)
    if r not in (0, 1):
        x = np.where(seen, np.where(x > 0, x / r, x * r), x)
    x = x - s.get("PresencePenalty", 0) * seen - s.get("FrequencyPenalty", 0) * counts
    return x


def distribution(x, counts, s):
    x = process(x, counts, s)
    B, V = x.shape
    margin = math.inf
    if s.get("Temperature", 0) == 0:
        out = np.full_like(x, -np.inf)
        out[np.arange(B), np.argmax(x, axis=1)] = 0
        return out, margin
    keep = np.ones_like(x, dtype=bool)
    k = s.get("TopK", 0)
    if 0 < k < V:
        kth = -np.sort(-x, axis=1)[:, k - 1 : k]
        keep &= x >= kth
        srt = -np.sort(-x, axis=1)
        # the k-th and (k+1)-th largest must not tie
        margin = min(margin, np.min(srt[:, k - 1] - srt[:, k]))
    p = s.get("TopP", 0)
    if 0 < p < 1:
        for b in range(B):
            kept = x[b][keep[b]]
            srt = -np.sort(-kept)
            probs = np.exp(srt - srt.max())
            probs /= probs.sum()
            before = np.concatenate([[0.0], np.cumsum(probs)[:-1]])
            n = int(np.sum(before < p))
            cut = srt[n - 1]
            keep[b] &= x[b] >= cut
            margin = min(margin, np.min(np.abs(before - p)))
    mp = s.get("MinP", 0)
    if mp > 0:
        cut = x.max(axis=1, keepdims=True) + math.log(mp)
        keep &= x >= cut
        margin = min(margin, np.min(np.abs(x - cut)))
    t = s["Temperature"]
    z = np.where(keep, x / t, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    lp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return lp, margin


def main():
    cases = json.load(sys.stdin)
    out = []
    for c in cases:
        x = np.array(c["logits"], dtype=np.float32)
        counts = np.array(c["counts"], dtype=np.float64)
        lp, margin = distribution(x, counts, c["settings"])
        out.append({
            "logprobs": [[None if math.isinf(v) else float(v) for v in row] for row in lp],
            "margin": None if math.isinf(margin) else float(margin),
        })
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
