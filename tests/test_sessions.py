"""The session corpus (interp/corpus/testdata/sessions/*.cells) through the
kernel, with jupyter_client: each session in a fresh kernel, cell by cell,
each cell's output (stdout, stderr, the shown value, an error) compared
with what go run of the equivalent compiled program printed for that cell
(interp/corpus/oracle, cached in test-output/corpus-cache/sessions/).
interp/corpus/sessions_test.go runs the same sessions through
emily-repl FILE. Known failures (mode "kernel") are listed, each with its
reason, in interp/corpus/testdata/known/sessions.txt: they are strict
xfails, so one that passes fails the run until it is taken off the list.
"""
import json
import os
import queue
import subprocess
import threading

import pytest
from jupyter_client.manager import start_new_kernel

from conftest import ROOT

CORPUS = ROOT / "interp" / "corpus" / "testdata"
SESSIONS = CORPUS / "sessions"
KNOWN = CORPUS / "known" / "sessions.txt"
CELL_TIMEOUT = 20
START_TIMEOUT = 60


def _env():
    """The environment the Makefile gives go: the same CGO_CPPFLAGS keeps
    go's build cache shared with `make build`."""
    env = dict(os.environ)
    if "CGO_CPPFLAGS" not in env:
        backend = os.path.basename(os.readlink(ROOT / ".deps" / "mlx")) if (ROOT / ".deps" / "mlx").is_symlink() else ""
        env["CGO_CPPFLAGS"] = "-DEMILY_MLX_BACKEND_" + backend.replace("-", "_")
    return env


def _expected():
    out = subprocess.run(
        ["go", "run", "./interp/corpus/oracle/expected", str(SESSIONS.relative_to(ROOT))],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"the session oracle failed: {out.stderr}")
    return json.loads(out.stdout)


def _known():
    known = {}
    for n, line in enumerate(KNOWN.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, _, reason = line.partition(":")
        mode, name = head.split()
        assert reason.strip(), f"{KNOWN}:{n}: no reason"
        known.setdefault(mode, {})[name] = reason.strip()
    return known


NAMES = sorted(p.name for p in SESSIONS.glob("*.cells"))
KNOWN_KERNEL = _known().get("kernel", {})


def test_known_list_names_sessions():
    stale = sorted(set(KNOWN_KERNEL) - set(NAMES))
    assert not stale, f"{KNOWN} lists kernel failures of no session: {stale}"


@pytest.fixture(scope="module")
def expected():
    return _expected()


class Kernels:
    """Starts the next session's kernel while the current one runs."""

    def __init__(self):
        self.next = queue.Queue(maxsize=1)
        self.thread = None

    def _start(self):
        try:
            self.next.put(start_new_kernel(kernel_name="emily", startup_timeout=START_TIMEOUT))
        except Exception as e:  # reported by get()
            self.next.put(e)

    def get(self):
        if self.thread is None:
            self._start_bg()
        k = self.next.get()
        self._start_bg()
        if isinstance(k, Exception):
            raise k
        return k

    def _start_bg(self):
        self.thread = threading.Thread(target=self._start, daemon=True)
        self.thread.start()

    def close(self):
        if self.thread is not None:
            self.thread.join()
            k = self.next.get()
            if not isinstance(k, Exception):
                stop(*k)


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernels():
    ks = Kernels()
    yield ks
    ks.close()


def cell_output(kc, code):
    """What the cell shows, in the order the front end shows it."""
    parts = []

    def hook(msg):
        c, t = msg["content"], msg["msg_type"]
        if t == "stream":
            parts.append(c["text"])
        elif t in ("execute_result", "display_data") and "text/plain" in c["data"]:
            parts.append(c["data"]["text/plain"] + "\n")
        elif t == "error":
            parts.append(f"{c['ename']}: {c['evalue']}\n")

    kc.execute_interactive(code, timeout=CELL_TIMEOUT, output_hook=hook)
    return "".join(parts)


def first_line(cell):
    return next((l.strip() for l in cell.splitlines() if l.strip() and not l.strip().startswith("//")), "")


def run_session(kernels, cells, want):
    km, kc = kernels.get()
    try:
        for i, cell in enumerate(cells):
            try:
                got = cell_output(kc, cell)
            except TimeoutError:
                return f"cell {i + 1} ({first_line(cell)}): timed out after {CELL_TIMEOUT}s"
            if got.rstrip("\n") != want[i].rstrip("\n"):
                return f"cell {i + 1} ({first_line(cell)}): got {got[:300]!r}, want {want[i][:300]!r}"
        return ""
    finally:
        stop(km, kc)


def test_every_session_has_expected_outputs(expected):
    """The oracle derived and ran every session's equivalent program (a
    failure here is a defect of the corpus, never a known failure)."""
    assert sorted(expected) == NAMES
    bad = {n: s["expected"]["error"] for n, s in expected.items() if s["expected"].get("error")}
    assert not bad, bad


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_KERNEL[n])) if n in KNOWN_KERNEL else n
    for n in NAMES
])
def test_session(name, expected, kernels):
    s = expected[name]
    exp = s["expected"]
    if exp.get("error"):
        pytest.skip("no expected output (test_every_session_has_expected_outputs fails)")
    msg = run_session(kernels, s["cells"], exp["cells"])
    assert not msg, f"{name}: {msg}"
