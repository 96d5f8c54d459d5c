"""Shared fixtures: the kernelspec is installed by the real binary into a
temporary Jupyter data dir, so tests never touch the user's Jupyter."""
import os
import pathlib
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "bin" / "emily-repl"

# Module-level so that jupyter_kernel_test's class setup (which runs before
# fixtures) already finds the kernelspec.
_DATA_DIR = tempfile.mkdtemp(prefix="emily-jupyter-")
os.environ["JUPYTER_DATA_DIR"] = _DATA_DIR
os.environ["JUPYTER_PATH"] = _DATA_DIR
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
if not BINARY.exists():
    raise SystemExit(f"{BINARY} is missing: run `make build` (make test does)")
subprocess.run([str(BINARY), "install", "--user"], check=True, capture_output=True)


@pytest.fixture(scope="session")
def binary():
    return BINARY


@pytest.fixture(scope="session")
def data_dir():
    return pathlib.Path(_DATA_DIR)


def pytest_terminal_summary(terminalreporter):
    """Says loudly, at the very end of the run, when the browser test
    (test_browser.py) was collected but skipped because Chromium or
    chromedriver is missing, so that a run without it never passes for a
    run with it; says where its screenshots are when it ran. The reason
    is also left in test-output/browser/NOT-RUN, which `make test` repeats
    as its last words (the corpus and fuzz tests print after pytest)."""
    not_run = ROOT / "test-output" / "browser" / "NOT-RUN"
    reports = [
        r for key in ("passed", "skipped", "failed")
        for r in terminalreporter.stats.get(key, [])
        if "test_browser.py::" in getattr(r, "nodeid", "")
    ]
    if not reports:
        return
    skipped = [r for r in reports if r.skipped]
    if skipped:
        longrepr = skipped[0].longrepr
        reason = (longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)).removeprefix("Skipped: ")
        terminalreporter.write_sep("!", "THE BROWSER TEST DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(reason, red=True, bold=True)
        terminalreporter.write_line(
            "notebooks/tour.ipynb was NOT checked in JupyterLab + Chromium; install chromium and "
            "chromium-driver (make test does it as root with apt-get) and run again.", red=True, bold=True)
        terminalreporter.write_sep("!", red=True, bold=True)
        not_run.parent.mkdir(parents=True, exist_ok=True)
        not_run.write_text(reason + "\n")
        return
    not_run.unlink(missing_ok=True)
    if all(r.passed for r in reports if r.when == "call"):
        shots = ROOT / "test-output" / "browser"
        terminalreporter.write_line(f"browser test: JupyterLab + Chromium ran notebooks/tour.ipynb; screenshots in {shots}")
