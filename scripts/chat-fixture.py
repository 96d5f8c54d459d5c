#!/usr/bin/env python3
"""Write models/llama/chat/testdata/smollm2_chat.json: chat templates
rendered by Hugging Face transformers' own renderer (render_jinja_template,
what tokenizer.apply_chat_template calls: ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, raise_exception, tojson, strftime_now) on the
test conversations. The Go test of models/llama/chat renders the same and
compares.

    scripts/chat-fixture.py GGUF OUT.json

Templates: the GGUF's tokenizer.chat_template (its special tokens passed as
bos_token, eos_token, unk_token, pad_token, as apply_chat_template passes the
tokenizer's), ChatML (chat.ChatMLSource, the package's explicit fallback) and
a template written here that uses the Jinja features chat templates of other
models use (namespace, loop variables, filters, tests, macros, slicing).

Needs transformers and gguf (pip, in a scratch venv; torch is not needed):
    python3 -m venv /tmp/hfvenv && /tmp/hfvenv/bin/pip install transformers gguf
"""

import argparse
import json

import gguf
import transformers
from transformers.utils.chat_template_utils import render_jinja_template

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

# Written for this fixture: the constructs of Llama 3's, Qwen's and Mistral's
# templates, with block tags on their own lines so trim_blocks and
# lstrip_blocks matter.
FEATURES = """{%- set ns = namespace(system='', turns=0) -%}
{%- macro turn(role, text) -%}
[{{ role | upper }}] {{ text | trim }}
{%- endmacro -%}
{{ bos_token }}
{% for m in messages %}
    {% if m['role'] == 'system' %}
        {% set ns.system = m['content'] %}
    {% elif m.role not in ['user', 'assistant'] %}
        {{ raise_exception('unknown role ' ~ m.role) }}
    {% else %}
        {% set ns.turns = ns.turns + 1 %}
{{ loop.index0 }}/{{ loop.length }}{{ ' first' if loop.first }}{{ ' last' if loop.last }}: {{ turn(m.role, m.content) }}
    {% endif %}
{% endfor %}
system={{ ns.system | tojson }} turns={{ ns.turns }} words={{ (messages | map(attribute='content') | join(' ')).split() | length }}
{% if messages | selectattr('role', 'equalto', 'assistant') | list | length > 0 %}
has assistant; last reply starts {{ (messages | selectattr('role', 'equalto', 'assistant') | list | last).content[:5] | tojson }}
{% endif %}
{% if add_generation_prompt is defined and add_generation_prompt %}
[ASSISTANT]
{%- endif %}
{{ eos_token if not add_generation_prompt else '' }}"""

CONVERSATIONS = {
    "user only": [{"role": "user", "content": "What is the capital of France?"}],
    "system and user": [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Name three primes."},
    ],
    "multi-turn": [
        {"role": "system", "content": "You answer in French."},
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Bonjour ! Comment puis-je vous aider ?"},
        {"role": "user", "content": "Count to three."},
    ],
    "multi-turn without system": [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
        {"role": "assistant", "content": "6"},
    ],
    "awkward content": [
        {"role": "user", "content": "  {{ not a variable }} {% raw %}\n\tindented line\n\n日本語 😀 \"quotes\" 'single' \\ backslash  "},
    ],
    "empty content": [{"role": "user", "content": ""}],
}


def meta_value(reader, key):
    f = reader.fields.get(key)
    if f is None:
        return None
    return f.contents()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gguf")
    ap.add_argument("out")
    a = ap.parse_args()

    r = gguf.GGUFReader(a.gguf)
    tokens = meta_value(r, "tokenizer.ggml.tokens")
    specials = {}
    for key, name in [
        ("tokenizer.ggml.bos_token_id", "bos_token"),
        ("tokenizer.ggml.eos_token_id", "eos_token"),
        ("tokenizer.ggml.unknown_token_id", "unk_token"),
        ("tokenizer.ggml.padding_token_id", "pad_token"),
    ]:
        v = meta_value(r, key)
        if v is not None:
            specials[name] = tokens[int(v)]
    templates = {
        "gguf": meta_value(r, "tokenizer.chat_template"),
        "chatml": CHATML,
        "features": FEATURES,
    }
    cases = []
    for tname, src in templates.items():
        for cname, msgs in CONVERSATIONS.items():
            for gen in (True, False):
                # It returns (one rendering per conversation, generation indices).
                rendered, _ = render_jinja_template(
                    conversations=[msgs], chat_template=src, add_generation_prompt=gen, **specials
                )
                text = rendered[0]
                cases.append(
                    {"template": tname, "conversation": cname, "add_generation_prompt": gen, "messages": msgs, "text": text}
                )
    doc = {
        "made_by": "scripts/chat-fixture.py",
        "renderer": f"transformers {transformers.__version__} render_jinja_template (apply_chat_template's)",
        "special_tokens": specials,
        "templates": {"chatml": CHATML, "features": FEATURES},
        "cases": cases,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{a.out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
