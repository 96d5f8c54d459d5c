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

The tokenizer comes from the GGUF's metadata too (tokenizer.json,
tokenizer_config.json with the special tokens, and the chat template as
chat_template.jinja, built with Hugging Face's tokenizers; config.json's
eos_token_id is the GGUF's end-of-generation set), so mlx-lm and mlx_lm.server tokenize as
llama.cpp and models/llama do. The script then checks that: encodes
through the written files as mlx-lm loads them and compares with
llama.cpp's ids (models/llama/bpe's fixture, for SmolLM2) and, with
--check-with bin/emily-repl, with `emily-repl tokenize`; a mismatch is
an error (exit status 1), --no-check skips it.

--float32 stores scales/biases (and float16 tensors) as float32 (exact),
so mlx-lm computes in float32 as models/llama does; without it they stay
float16 and mlx-lm's activations are float16.

Needs mlx and mlx-lm (pip install "mlx[cpu]==<.deps/mlx's version>" mlx-lm;
mlx-lm brings transformers and tokenizers): scripts/setup-generate-peers.sh.
"""
import json
import subprocess
import sys
import tempfile
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
    argv = sys.argv[1:]
    emily = None
    if "--check-with" in argv:
        i = argv.index("--check-with")
        emily = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    f32, check = "--float32" in argv, "--no-check" not in argv
    if len(args) != 2:
        sys.exit("usage: gguf-to-mlx.py GGUF OUT_DIR [--float32] [--check-with EMILY_REPL] [--no-check]")
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
    eog = write_tokenizer(meta, dst, cfg["max_position_embeddings"])
    # mlx-lm stops on config.json's eos_token_id: the GGUF's whole EOG set,
    # as llama.cpp and models/llama stop (SmolLM2: <|im_end|> and
    # <|endoftext|>), not the EOS id alone.
    cfg["eos_token_id"] = eog
    if (bos := scalar(meta.get("tokenizer.ggml.bos_token_id"))) is not None:
        cfg["bos_token_id"] = bos
    mx.save_safetensors(str(dst / "model.safetensors"), out, metadata={"format": "mlx"})
    (dst / "config.json").write_text(json.dumps(cfg, indent=2))
    print(f"{src} -> {dst}: {len(out)} tensors, {len(quant)} quantized modules, tokenizer.json ({scalar(meta.get('tokenizer.ggml.pre'))!r} pre-tokenizer)")
    if check:
        bad = check_tokenizer(meta, str(src), dst, eog, emily)
        if bad:
            for b in bad[:20]:
                print("  " + b, file=sys.stderr)
            sys.exit(f"{dst}: the written tokenizer disagrees with the GGUF's in {len(bad)} case(s) (above)")


# --- The tokenizer: tokenizer.json and tokenizer_config.json -------------
#
# Built with Hugging Face's `tokenizers` from the GGUF's own metadata
# (tokenizer.ggml.*), so mlx-lm and mlx_lm.server read exactly the
# tokenizer the GGUF carries. transformers' own GGUF path
# (AutoTokenizer.from_pretrained(dir, gguf_file=...)) is not used: in
# transformers 5.24 it needs torch (its GGUF reader imports it), and it
# has no entry for tokenizer.ggml.pre "smollm", so it would give SmolLM2
# GPT-2's digit runs where llama.cpp (and models/llama/bpe) split digits
# one by one.
#
# The pre-tokenizer table follows llama.cpp's (src/llama-vocab.cpp), as
# models/llama/bpe/pretok.go does, name for name; other names are refused.

# GPT-2's expression; HF's ByteLevel(use_regex=True) is this one.
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
_LLAMA3 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
           r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
          r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# llama.cpp's default (and a GGUF without tokenizer.ggml.pre): four
# expressions, each splitting what the previous ones left.
_DEFAULT = [r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", r"[0-9][0-9][0-9]"]

# name -> (rule, ignore_merges, add_bos default); rules as in pretok.go.
_PRE = {}
for _n in ("smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b", "mellum2"):
    _PRE[_n] = ("digits", False, False)
for _n in ("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
           "modern-bert", "exaone4", "mpt", "olmo", "jais", "trillion", "granite-docling"):
    _PRE[_n] = ("gpt2", False, False)
for _n in ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"):
    _PRE[_n] = ("llama3", True, True)
for _n in ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan", "solar-open"):
    _PRE[_n] = ("qwen2", False, False)
_PRE["default"] = _PRE[""] = ("default", False, False)

# The tokens llama.cpp takes as end of generation by their text, beside
# the EOS/EOT/EOM ids (llama_vocab::impl::load; models/llama/bpe's
# eogTexts): mlx-lm stops on the same set (config.json's eos_token_id).
_EOG_TEXTS = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
              "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
              "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
              "<｜end▁of▁sentence｜>", "[e~["]
_EOT_TEXTS = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
              "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"]

# tokenizer.ggml.token_type values.
_UNKNOWN, _CONTROL, _USER_DEFINED = 2, 3, 4


def pre_tokenizer(pre):
    from tokenizers import Regex, pre_tokenizers as pt

    if pre not in _PRE:
        sys.exit(f"tokenizer.ggml.pre {pre!r}: no Hugging Face pre-tokenizer for it here; supported: "
                 + ", ".join(sorted(n for n in _PRE if n)))
    rule, ignore_merges, add_bos = _PRE[pre]
    byte_level = pt.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)
    if rule == "gpt2":
        p = pt.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    elif rule == "digits":
        # \p{N} one by one, then GPT-2's expression (SmolLM2's own
        # tokenizer.json has exactly this pair).
        p = pt.Sequence([pt.Digits(individual_digits=True),
                         pt.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)])
    elif rule in ("llama3", "qwen2"):
        p = pt.Sequence([pt.Split(Regex(_LLAMA3 if rule == "llama3" else _QWEN2), behavior="isolated"), byte_level])
    else:
        p = pt.Sequence([pt.Split(Regex(r), behavior="isolated") for r in _DEFAULT] + [byte_level])
    return p, ignore_merges, add_bos


def build_tokenizer(meta, pre=None):
    """The GGUF's tokenizer as a `tokenizers.Tokenizer`, with what
    tokenizer_config.json needs beside it. pre overrides tokenizer.ggml.pre
    (the check runs the fixture's variants)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, processors

    t = lambda k, d=None: scalar(meta.get(f"tokenizer.ggml.{k}", d))
    if t("model") != "gpt2":
        sys.exit(f"tokenizer.ggml.model {t('model')!r}: only byte-level BPE (gpt2) is converted")
    tokens, merges = list(t("tokens")), list(t("merges"))
    types = t("token_type") or [1] * len(tokens)
    if isinstance(types, int):
        types = [types]
    if pre is None:
        pre = t("pre", "default")
    pre_tok, ignore_merges, add_bos_default = pre_tokenizer(pre)
    vocab = {}
    for i, s in enumerate(tokens):
        vocab.setdefault(s, i)  # a repeated string keeps its first id, as llama.cpp's token_to_id
    # A merge is "left right"; the space llama.cpp cuts at is the first one
    # after the first character (a byte-level token has no space, but the
    # first piece may be one).
    pairs = []
    for m in merges:
        k = m.find(" ", 1)
        pairs.append((m[:k], m[k + 1:]))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, ignore_merges=ignore_merges, fuse_unk=False, byte_fallback=False))
    tok.pre_tokenizer = pre_tok
    tok.decoder = decoders.ByteLevel()

    ids = {k: t(f"{k}_token_id") for k in ("bos", "eos", "eot", "eom", "padding", "unknown")}
    ids = {k: (v if isinstance(v, int) and 0 <= v < len(tokens) else None) for k, v in ids.items()}
    if ids["eot"] is None:
        ids["eot"] = next((vocab[s] for s in _EOT_TEXTS if s in vocab), None)
    eog = sorted({vocab[s] for s in _EOG_TEXTS if s in vocab} | {ids[k] for k in ("eos", "eot", "eom") if ids[k] is not None})
    # llama.cpp cuts control, unknown and user-defined tokens out of the
    # text before BPE (control and unknown ones only when it parses
    # special tokens, HF's "special"), and forces the EOG tokens to control.
    special = [i for i, ty in enumerate(types) if ty in (_CONTROL, _UNKNOWN) or i in eog]
    user = [i for i, ty in enumerate(types) if ty == _USER_DEFINED and i not in eog]
    tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False) for i in special])
    tok.add_tokens([AddedToken(tokens[i], special=False, normalized=False) for i in user])
    for i in special + user:
        if tok.token_to_id(tokens[i]) != i:
            sys.exit(f"token {i} {tokens[i]!r}: the tokenizer gives it id {tok.token_to_id(tokens[i])} (a repeated string?)")

    add_bos, add_eos = t("add_bos_token"), t("add_eos_token")
    add_bos = add_bos_default if add_bos is None else bool(add_bos)
    add_eos = bool(add_eos) if add_eos is not None else False
    bos, eos = ids["bos"], ids["eos"]
    if (add_bos and bos is None) or (add_eos and eos is None):
        sys.exit("tokenizer.ggml.add_bos_token/add_eos_token set, but the GGUF names no bos/eos token id")
    if add_bos or add_eos:
        single = ([f"{tokens[bos]}:0"] if add_bos else []) + ["$A:0"] + ([f"{tokens[eos]}:0"] if add_eos else [])
        pair = single + ([f"{tokens[bos]}:1"] if add_bos else []) + ["$B:1"] + ([f"{tokens[eos]}:1"] if add_eos else [])
        sp = ([(tokens[bos], bos)] if add_bos else []) + ([(tokens[eos], eos)] if add_eos and eos != bos else [])
        tok.post_processor = processors.TemplateProcessing(single=" ".join(single), pair=" ".join(pair), special_tokens=sp)
    name = lambda k: tokens[ids[k]] if ids[k] is not None else None
    config = {
        "bos_token": name("bos"), "eos_token": name("eos"), "unk_token": name("unknown"), "pad_token": name("padding"),
        "add_bos_token": add_bos, "add_eos_token": add_eos,
    }
    return tok, config, eog


def write_tokenizer(meta, dst, context):
    """tokenizer.json, tokenizer_config.json (chat template, special tokens)
    through transformers' save_pretrained, as a Hugging Face repo has them.
    Returns the EOG ids, for config.json's eos_token_id."""
    from transformers import PreTrainedTokenizerFast

    tok, config, eog = build_tokenizer(meta)
    hf = PreTrainedTokenizerFast(tokenizer_object=tok, model_max_length=context, clean_up_tokenization_spaces=False,
                                 **{k: v for k, v in config.items() if v is not None})
    template = scalar(meta.get("tokenizer.chat_template"))
    if template:
        hf.chat_template = template
    hf.save_pretrained(str(dst))
    return eog


# --- The check: the written tokenizer against llama.cpp's and ours -------

ROOT = Path(__file__).resolve().parent.parent
BPE_FIXTURE = ROOT / "models/llama/bpe/testdata/smollm2_llamacpp.json"
CHAT_FIXTURE = ROOT / "models/llama/chat/testdata/smollm2_chat.json"


def check_tokenizer(meta, gguf, dst, eog, emily=None):
    """Encodes through the written files as mlx-lm loads them
    (mlx_lm.tokenizer_utils.load, what mlx_lm.server runs) and compares
    with llama.cpp's ids (models/llama/bpe's fixture, when the GGUF is its
    SmolLM2: every case, and its pre-tokenizer variants), the chat
    template with Hugging Face's renders (models/llama/chat's fixture),
    and, given `emily-repl`, with `emily-repl tokenize` on the same GGUF.
    Returns the failures."""
    from mlx_lm.tokenizer_utils import load as load_tokenizer

    wrapper = load_tokenizer(Path(dst), eos_token_ids=eog)
    hf = wrapper._tokenizer
    bad, n = [], 0

    def same(what, text, got, want):
        nonlocal n
        n += 1
        if list(got) != list(want):
            bad.append(f"{what} {text!r}: got {list(got)}, want {list(want)}")

    if sorted(wrapper.eos_token_ids) != sorted(eog):
        bad.append(f"mlx-lm's eos_token_ids {sorted(wrapper.eos_token_ids)}, want the GGUF's EOG ids {eog}")
    tokens = scalar(meta["tokenizer.ggml.tokens"])
    smollm2 = scalar(meta.get("tokenizer.ggml.pre")) == "smollm" and len(tokens) == 49152
    if smollm2:
        fx = json.loads(BPE_FIXTURE.read_text())
        for c in fx["cases"]:
            got = hf.encode(c["text"], add_special_tokens=True, split_special_tokens=not c["parse_special"])
            same("llama.cpp fixture: encode", c["text"], got, c["ids"])
            dec = hf.decode(got, skip_special_tokens=False, clean_up_tokenization_spaces=False)
            if dec != c["text"]:
                bad.append(f"decode(encode({c['text']!r})) = {dec!r}")
        for pre, cases in fx["variants"].items():
            tok, _, _ = build_tokenizer(meta, pre=pre)
            for c in cases:
                tok.encode_special_tokens = not c["parse_special"]
                same(f"llama.cpp fixture, pre-tokenizer {pre}:", c["text"], tok.encode(c["text"]).ids, c["ids"])
        for c in json.loads(CHAT_FIXTURE.read_text())["cases"]:
            if c["template"] != "gguf":
                continue
            n += 1
            got = hf.apply_chat_template(c["messages"], tokenize=False, add_generation_prompt=c["add_generation_prompt"])
            if got != c["text"]:
                bad.append(f"chat template, {c['conversation']!r}: got {got!r}, want {c['text']!r}")
    # BOS and EOS where the GGUF asks for them (SmolLM2 asks for neither):
    # written and loaded as above, with the flags set.
    with tempfile.TemporaryDirectory() as tmp:
        forced = dict(meta, **{"tokenizer.ggml.add_bos_token": True, "tokenizer.ggml.add_eos_token": True})
        write_tokenizer(forced, Path(tmp), 1024)
        t2 = load_tokenizer(Path(tmp), eos_token_ids=eog)._tokenizer
        bos, eos = t2.convert_tokens_to_ids([t2.bos_token, t2.eos_token])
        ids = t2.encode("Hello world", add_special_tokens=True)
        n += 1
        if ids[:1] != [bos] or ids[-1:] != [eos] or len(ids) < 3:
            bad.append(f"add_bos_token/add_eos_token: 'Hello world' encodes as {ids}, want {bos} … {eos}")
    if emily:
        # One line each: `emily-repl tokenize` reads lines.
        lines = [c["text"] for c in json.loads(BPE_FIXTURE.read_text())["cases"]
                 if c["parse_special"] and "\n" not in c["text"] and "\r" not in c["text"]]
        lines += ["def f(x):    return x**2  # 3.14", "https://example.com/a?b=1&c=%20", "Größe ½ ² ① Ⅻ"]
        out = subprocess.run([emily, "tokenize", "--model", gguf], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
        if len(out) != len(lines):
            bad.append(f"emily-repl tokenize: {len(out)} lines for {len(lines)}")
        for text, ids in zip(lines, out):
            same("emily-repl tokenize:", text, hf.encode(text, add_special_tokens=True), json.loads(ids))
    print(f"tokenizer check: {n} comparisons, {len(bad)} failed"
          + ("" if smollm2 else " (not SmolLM2: the llama.cpp and chat fixtures do not apply)")
          + ("" if emily else " (no emily-repl given: --check-with BIN)"))
    return bad


if __name__ == "__main__":
    main()
