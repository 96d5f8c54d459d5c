"""notebooks/*.ipynb store the language_info and kernelspec the kernel
reports, so JupyterLab opens them unmodified: it copies kernel_info_reply's
language_info into the notebook it opens, and a difference marks the
notebook changed and makes autosave rewrite it (the browser test checks
the tour in JupyterLab itself)."""
import json
import pathlib

import pytest
from jupyter_client.manager import start_new_kernel

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def kernel_info():
    km, kc = start_new_kernel(kernel_name="emily")
    try:
        msg_id = kc.kernel_info()
        reply = kc.get_shell_msg(timeout=30)
        assert reply["parent_header"]["msg_id"] == msg_id
        yield reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 6, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_stores_what_the_kernel_reports(path, kernel_info, data_dir):
    meta = json.loads(path.read_text())["metadata"]
    want = kernel_info["language_info"]
    assert meta["language_info"] == want, (
        f"{path.name} stores language_info {meta['language_info']}, the kernel reports {want}: "
        "JupyterLab would open it modified. Store the kernel's (its version is the Go release, "
        "kernel.GoLanguageVersion).")
    spec = json.loads((data_dir / "kernels" / "emily" / "kernel.json").read_text())
    # JupyterLab writes kernelspec {name, display_name, language} from the spec.
    assert meta["kernelspec"] == {"name": "emily", "display_name": spec["display_name"], "language": spec["language"]}
    for cell in json.loads(path.read_text())["cells"]:
        assert "id" in cell, f"{path.name}: a cell without an id (nbformat 4.5; JupyterLab would add one)"
