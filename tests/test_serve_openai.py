"""`emily-repl serve --embeddings` driven by OpenAI's official Python client,
as users drive llama-server and mlx_lm.server: the models list, embeddings
(float and base64) that match sentence-transformers' fixture, chat and
completions on SmolLM2 (.deps/llm.gguf), streamed and not, logprobs, stop,
seed reproducibility, 400s that name the field, a prompt over the context
refused, 429 with Retry-After when the queue is full, a disconnect that
stops its generation, and SIGTERM that drains a request in flight."""
import json
import pathlib
import re
import signal
import subprocess
import threading
import time
import urllib.request

import numpy as np
import openai
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "models" / "bert" / "testdata" / "minilm_reference"
LLM = ROOT / ".deps" / "llm.gguf"


@pytest.fixture(scope="module")
def server(binary):
    if not LLM.exists():
        pytest.skip(f"{LLM} is missing: `make llm` fetches it")
    # One generation at a time (a batch of one row, through the batcher and
    # its prefix cache) and a queue of one: the 429 test can fill it.
    # serving/llamaserve/loopback_test.go drives a batch of 32.
    p = subprocess.Popen([str(binary), "serve", "--model", str(LLM), "--embeddings", "--addr", "127.0.0.1:0",
                          "--max-queue", "1", "--parallel", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "serving on http://" in line, (line, p.stderr.read() if p.poll() is not None else "")
    url = re.search(r"(http://[\d.]+:\d+)", line).group(1)
    yield url, p
    if p.poll() is None:
        p.kill()
        p.wait()


@pytest.fixture(scope="module")
def client(server):
    url, _ = server
    # No retries: a 429 must reach the test, not be retried away.
    return openai.OpenAI(base_url=url + "/v1", api_key="none", max_retries=0, timeout=120)


def metrics(url):
    with urllib.request.urlopen(url + "/metrics", timeout=30) as r:
        return r.read().decode()


def metric(url, name):
    m = re.search(r"^" + re.escape(name) + r" (\S+)$", metrics(url), re.M)
    return float(m.group(1)) if m else 0.0


def cos(a, b):
    return float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))


def test_models_list(client):
    ids = [m.id for m in client.models.list().data]
    assert ids == ["llm", "minilm"], ids


def test_embeddings_match_sentence_transformers(client):
    ref = json.loads(FIXTURE.with_suffix(".json").read_text(encoding="utf-8"))
    E = np.load(FIXTURE.with_suffix(".npy"))
    texts = ref["sentences"][:3]
    # The client asks for base64 unless told otherwise, and decodes it.
    for fmt in (openai.NOT_GIVEN, "float"):
        r = client.embeddings.create(model="minilm", input=texts, encoding_format=fmt)
        assert [d.index for d in r.data] == [0, 1, 2]
        for d in r.data:
            assert len(d.embedding) == 384
            assert cos(np.array(d.embedding), E[d.index]) >= 0.9999
        assert r.usage.prompt_tokens == sum(len(ids) for ids in ref["ids"][:3])
    one = client.embeddings.create(model="minilm", input=texts[0])
    assert len(one.data) == 1 and cos(np.array(one.data[0].embedding), E[0]) >= 0.9999


def test_chat_streamed_equals_whole(client):
    msgs = [{"role": "user", "content": "What is the capital of France?"}]
    whole = client.chat.completions.create(model="llm", messages=msgs, max_tokens=8, temperature=0)
    text = whole.choices[0].message.content
    assert text and whole.choices[0].finish_reason in ("stop", "length")
    assert whole.usage.completion_tokens <= 8 and whole.usage.prompt_tokens > 5
    chunks = list(client.chat.completions.create(model="llm", messages=msgs, max_tokens=8, temperature=0,
                                                 stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == whole.usage.completion_tokens
    assert "Paris" in text, text


def test_completion_logprobs_and_stop(client):
    r = client.completions.create(model="llm", prompt="The capital of France is", max_tokens=6, temperature=0,
                                  logprobs=2, stop=["."])
    c = r.choices[0]
    assert c.text == " Paris" and c.finish_reason == "stop", c
    assert c.logprobs.tokens[0] == " Paris"
    top = c.logprobs.top_logprobs[0]
    assert len(top) == 2 and max(top.values()) == pytest.approx(c.logprobs.token_logprobs[0])
    assert all(lp <= 0 for lp in c.logprobs.token_logprobs)
    # Chat logprobs: top_logprobs alternatives, most likely first.
    ch = client.chat.completions.create(model="llm", messages=[{"role": "user", "content": "Say hi"}], max_tokens=3,
                                        temperature=0, logprobs=True, top_logprobs=3)
    first = ch.choices[0].logprobs.content[0]
    assert len(first.top_logprobs) == 3 and first.top_logprobs[0].logprob >= first.top_logprobs[1].logprob
    assert first.logprob == pytest.approx(first.top_logprobs[0].logprob)  # greedy picks the most likely


def test_seed_reproducible(client):
    kw = dict(model="llm", prompt="Once upon a time", max_tokens=8, temperature=0.9, top_p=0.95)
    a = client.completions.create(seed=11, n=2, **kw)
    b = client.completions.create(seed=11, n=2, **kw)
    assert [c.text for c in a.choices] == [c.text for c in b.choices]
    assert a.choices[0].text != a.choices[1].text  # each choice has its own seed


@pytest.mark.parametrize("kw,param", [
    (dict(temperature=3), "temperature"),
    (dict(top_p=1.5), "top_p"),
    (dict(presence_penalty=-9), "presence_penalty"),
    (dict(n=0), "n"),
    (dict(max_tokens=0), "max_tokens"),
    (dict(logit_bias={"99999999": 5}), "logit_bias"),
    (dict(extra_body={"top_k": -1}), "top_k"),
    (dict(extra_body={"min_p": 2}), "min_p"),
    (dict(extra_body={"temprature": 0.1}), "temprature"),
    (dict(messages=[{"role": "wizard", "content": "x"}]), "messages[0].role"),
])
def test_bad_field_is_400_naming_it(client, kw, param):
    args = dict(model="llm", messages=[{"role": "user", "content": "hi"}], max_tokens=2)
    args.update(kw)
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(**args)
    assert e.value.status_code == 400 and e.value.param == param, e.value.body


def test_unknown_model_is_404(client):
    with pytest.raises(openai.NotFoundError) as e:
        client.embeddings.create(model="text-embedding-3-small", input="x")
    assert e.value.code == "model_not_found" and "minilm" in e.value.message


def test_prompt_over_the_context_is_400_never_truncated(client):
    long = "word " * 9000  # SmolLM2's context is 8192 tokens
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="llm", prompt=long, max_tokens=1)
    assert e.value.code == "context_length_exceeded" and e.value.param == "prompt"
    assert "8192" in e.value.message


def wait_for(cond, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def health(url):
    with urllib.request.urlopen(url + "/health", timeout=30) as r:
        return json.load(r)


def test_queue_full_is_429_and_disconnect_stops_generation(server, client):
    url, _ = server
    cancelled = metric(url, 'emily_generations_total{reason="cancelled"}')
    made = metric(url, 'emily_tokens_total{kind="completion"}')
    # A long stream holds the one worker.
    stream = client.completions.create(model="llm", prompt="Count: 1, 2, 3,", max_tokens=2000, temperature=0,
                                       stream=True)
    it = iter(stream)
    next(it)  # it is running
    # A second request waits in the queue (capacity 1).
    second = {}

    def queued():
        second["r"] = client.completions.create(model="llm", prompt="Hi", max_tokens=2, temperature=0)

    t = threading.Thread(target=queued)
    t.start()
    assert wait_for(lambda: health(url)["generation_queue"]["waiting"] == 1), health(url)
    # A third is refused at once.
    t0 = time.time()
    with pytest.raises(openai.RateLimitError) as e:
        client.completions.create(model="llm", prompt="Hi", max_tokens=2)
    assert time.time() - t0 < 5
    assert int(e.value.response.headers["Retry-After"]) >= 1 and "full" in e.value.message
    # The stream's client goes away: its generation stops within a step
    # or two, and the queued request runs.
    for _ in range(2):
        next(it)
    stream.close()
    assert wait_for(lambda: metric(url, 'emily_generations_total{reason="cancelled"}') == cancelled + 1, 30), \
        "the disconnected stream's generation was not cancelled"
    t.join(120)
    assert second["r"].choices[0].text
    tokens = metric(url, 'emily_tokens_total{kind="completion"}') - made
    assert tokens < 200, f"{tokens} tokens made: the stream went on after its client left"


def test_sigterm_drains_the_request_in_flight(server, client):
    url, p = server
    out = {}

    def long_one():
        out["r"] = client.completions.create(model="llm", prompt="Once upon a time", max_tokens=12, temperature=0)

    t = threading.Thread(target=long_one)
    t.start()
    assert wait_for(lambda: metric(url, 'emily_queue_running{queue="generation"}') == 1)
    p.send_signal(signal.SIGTERM)
    t.join(120)
    assert out["r"].usage.completion_tokens == 12 or out["r"].choices[0].finish_reason == "stop"
    assert p.wait(timeout=60) == 0
