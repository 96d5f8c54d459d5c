"""`emily-repl serve-embeddings` over real HTTP from Python's urllib:
health check, embeddings that match sentence-transformers' (the fixture
models/bert/testdata/minilm_reference.* holds them), concurrent clients each
getting their own answer, 4xx for bad input, and a clean exit on SIGTERM."""
import json
import pathlib
import signal
import subprocess
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "models" / "bert" / "testdata" / "minilm_reference"


@pytest.fixture(scope="module")
def server(binary):
    p = subprocess.Popen([str(binary), "serve-embeddings", "--addr", "127.0.0.1:0", "--max-texts", "8"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "serving embeddings on http://" in line, (line, p.stderr.read() if p.poll() is not None else "")
    url = line.split("on ", 1)[1].split()[0]
    yield url, p
    if p.poll() is None:
        p.kill()
        p.wait()


def post(url, body):
    req = urllib.request.Request(url + "/embed", data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def reference():
    ref = json.loads(FIXTURE.with_suffix(".json").read_text(encoding="utf-8"))
    short = [i for i, ids in enumerate(ref["ids"]) if len(ids) <= 32]
    return ref["sentences"], np.load(FIXTURE.with_suffix(".npy")), short


def cos(a, b):
    return float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))


def test_health(server):
    url, _ = server
    with urllib.request.urlopen(url + "/", timeout=30) as r:
        v = json.load(r)
    assert r.status == 200 and v["status"] == "ok" and v["dim"] == 384


def test_concurrent_clients_get_their_own_embeddings(server):
    url, _ = server
    sentences, E, short = reference()

    def one(k):
        i, j = short[k % len(short)], short[(k * 5 + 1) % len(short)]
        code, v = post(url, json.dumps({"texts": [sentences[i], sentences[j]]}).encode())
        assert code == 200, v
        got = np.array(v["embeddings"], dtype=np.float32)
        return cos(got[0], E[i]), cos(got[1], E[j])

    with ThreadPoolExecutor(16) as pool:
        cosines = [c for pair in pool.map(one, range(32)) for c in pair]
    assert min(cosines) >= 0.9999, min(cosines)


@pytest.mark.parametrize("body,code,msg", [
    (b'{"texts": ["a"', 400, "bad JSON"),
    (b'{"texts": []}', 400, "empty"),
    (b'{}', 400, 'no "texts"'),
    (json.dumps({"texts": ["x"] * 9}).encode(), 413, "the limit is 8"),
])
def test_bad_requests_get_4xx(server, body, code, msg):
    url, _ = server
    got, v = post(url, body)
    assert got == code and msg in v["error"], (got, v)


def test_sigterm_exits_cleanly(server):
    _, p = server
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == 0
