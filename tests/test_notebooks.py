"""Every notebook under notebooks/ runs top to bottom with nbclient, the
library behind `jupyter nbconvert --execute`, on the emily kernel."""
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def outputs_text(cell):
    text = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            text.append(out["text"])
        elif "data" in out:
            text.append(out["data"].get("text/plain", ""))
    return "".join(text)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="emily", timeout=120).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "a code cell did not run"


def test_tour_outputs():
    nb = nbformat.read(NOTEBOOKS[0].parent / "tour.ipynb", as_version=4)
    NotebookClient(nb, kernel_name="emily", timeout=120).execute()
    texts = [outputs_text(c) for c in nb.cells if c.cell_type == "code"]
    assert texts[0] == "Tensor int32[2 3]\n[[0 1 2]\n [3 4 5]]"
    assert texts[2] == "Tensor float32[2 3]\n[[ 1.  2.  5.]\n [10. 17. 26.]]"
    assert "= multiply in0, in0" in texts[3]
    assert texts[4] == texts[2]
    assert texts[5] == "Tensor float32[2 2]\n[[2. 3.]\n [8. 9.]]"
