"""`emily-repl serve` with continuous batching (--parallel 8), driven by
OpenAI's official Python client from 8 threads at once on SmolLM2
(.deps/llm.gguf): greedy chats and seeded sampled completions (with top-p,
penalties, logit bias) decoded in one batch each give what the same
request gives alone (a seed is kept in a batch, where mlx_lm.server turns
batching off for seeded requests), streamed and not; and a repeated
system prompt is served from the prefix cache."""
import pathlib
import re
import subprocess
import threading
import urllib.request

import openai
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LLM = ROOT / ".deps" / "llm.gguf"


@pytest.fixture(scope="module")
def server(binary):
    if not LLM.exists():
        pytest.skip(f"{LLM} is missing: `make llm` fetches it")
    p = subprocess.Popen([str(binary), "serve", "--model", str(LLM), "--addr", "127.0.0.1:0", "--parallel", "8",
                          "--prefix-cache", "64MiB"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "serving on http://" in line, (line, p.stderr.read() if p.poll() is not None else "")
    url = re.search(r"(http://[\d.]+:\d+)", line).group(1)
    yield url
    p.kill()
    p.wait()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server + "/v1", api_key="none", max_retries=0, timeout=300)


SYSTEM = "You are a helpful assistant who answers in one short sentence."
QUESTIONS = ["What is the capital of France?", "Name a colour.", "What is 2 + 2?", "Name a fruit."]


def chat(client, q, stream):
    msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}]
    if not stream:
        r = client.chat.completions.create(model="llm", messages=msgs, max_tokens=8, temperature=0)
        return r.choices[0].message.content, r.usage.completion_tokens
    chunks = list(client.chat.completions.create(model="llm", messages=msgs, max_tokens=8, temperature=0, stream=True,
                                                 stream_options={"include_usage": True}))
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices), chunks[-1].usage.completion_tokens


def sampled(client, i):
    r = client.completions.create(model="llm", prompt=f"Story {i}: once upon a time", max_tokens=8, temperature=0.9,
                                  top_p=0.9, presence_penalty=0.5, logit_bias={"13": -100}, seed=100 + i)
    return r.choices[0].text, r.usage.completion_tokens


def metric(url, name):
    with urllib.request.urlopen(url + "/metrics", timeout=30) as r:
        m = re.search(r"^" + re.escape(name) + r" (\S+)$", r.read().decode(), re.M)
    return float(m.group(1)) if m else 0.0


def test_batch_of_eight_equals_each_alone(server, client):
    jobs = [lambda q=q, s=s: chat(client, q, s) for q in QUESTIONS for s in (False, True)][:4]
    jobs += [lambda i=i: sampled(client, i) for i in range(4)]
    together = [None] * len(jobs)
    errors = []

    def run(k):
        try:
            together[k] = jobs[k]()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not errors, errors
    for k, job in enumerate(jobs):
        alone = job()
        assert together[k] == alone, (k, together[k], alone)
        assert together[k][0] and together[k][1] > 0
    # They ran together, and the system prompt's KV was reused by the
    # chats after the first.
    assert metric(server, "emily_batch_rows_peak") >= 4
    assert metric(server, "emily_prefix_cache_hits_total") >= 3
    assert metric(server, "emily_prefix_cache_reused_tokens_total") >= 3 * 20
    assert 0 < metric(server, "emily_prefix_cache_bytes") <= 64 << 20


def test_n_choices_are_rows_of_one_prefill(server, client):
    """n=3 joins the batch as 3 rows sharing one prefill: greedy, the 3
    choices are identical (and the n=1 answer); sampled with a seed, the
    call reproduces, and choice k is the n=1 request with seed + k (vLLM's
    choice: each choice its own seed stream), streamed as whole."""
    prompt = "Choices: a dog, a cat and"
    greedy = dict(model="llm", prompt=prompt, max_tokens=8, temperature=0)
    before = metric(server, "emily_batch_prefill_tokens_total")
    r = client.completions.create(n=3, **greedy)
    spent = metric(server, "emily_batch_prefill_tokens_total") - before
    texts = [c.text for c in sorted(r.choices, key=lambda c: c.index)]
    assert [c.index for c in sorted(r.choices, key=lambda c: c.index)] == [0, 1, 2]
    assert texts[0] and texts == [texts[0]] * 3, texts
    assert texts[0] == client.completions.create(n=1, **greedy).choices[0].text
    # One prefill of the prompt (all but its last token; the BOS may come
    # from the prefix cache), not three.
    assert 0 < spent < r.usage.prompt_tokens, (spent, r.usage.prompt_tokens)
    assert r.usage.completion_tokens == 3 * len(client.completions.create(n=1, logprobs=0, **greedy).choices[0].logprobs.tokens)

    sampled = dict(model="llm", prompt="Once upon a time, a robot", max_tokens=10, temperature=1.0, top_p=0.95)
    a = client.completions.create(n=3, seed=5, **sampled)
    b = client.completions.create(n=3, seed=5, **sampled)
    ta = [c.text for c in sorted(a.choices, key=lambda c: c.index)]
    assert ta == [c.text for c in sorted(b.choices, key=lambda c: c.index)]
    assert len(set(ta)) > 1, ta
    for k in range(3):
        alone = client.completions.create(n=1, seed=5 + k, **sampled).choices[0].text
        assert ta[k] == alone, (k, ta[k], alone)
    chunks = list(client.completions.create(n=3, seed=5, stream=True, **sampled))
    streamed = ["", "", ""]
    for c in chunks:
        for ch in c.choices:
            streamed[ch.index] += ch.text
    assert streamed == ta
