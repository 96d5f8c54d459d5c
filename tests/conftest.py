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
