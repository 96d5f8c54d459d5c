"""Every notebook under notebooks/ runs top to bottom with nbclient, the
library behind `jupyter nbconvert --execute`, on the emily kernel."""
import pathlib

import nbformat
import numpy as np
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


def numbers(text):
    return np.array([float(v) for v in text.strip().strip("[]").split()])


def example_data():
    i = np.arange(300, dtype=np.float32)
    c = np.remainder(i, 3)
    x = (c != 0).astype(np.float32) * 5 + np.sin(i * np.float32(1.7)) * np.float32(0.8)
    y = (c == 2).astype(np.float32) * 5 + np.cos(i * np.float32(2.3)) * np.float32(0.8)
    return np.stack([x, y], 1).astype(np.float32), c.astype(np.int64)


def run(name):
    nb = nbformat.read(NOTEBOOKS[0].parent / name, as_version=4)
    NotebookClient(nb, kernel_name="emily", timeout=120).execute()
    return [outputs_text(c) for c in nb.cells if c.cell_type == "code"]


def test_kmeans_reaches_numpys_centroids():
    texts = run("kmeans.ipynb")
    X, _ = example_data()
    C = X[:3].copy()
    for _ in range(10):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(2)
        onehot = (d.argmin(1)[:, None] == np.arange(3)).astype(np.float32)
        C = (onehot.T @ X) / onehot.sum(0)[:, None]
    np.testing.assert_allclose(numbers(texts[-1]), C.ravel(), rtol=1e-4, atol=1e-4)


def test_softmax_regression_reaches_numpys_weights():
    texts = run("softmax-regression.ipynb")
    X, labels = example_data()
    Y = (labels[:, None] == np.arange(3)).astype(np.float32)
    W = np.zeros((2, 3), np.float32)
    b = np.zeros(3, np.float32)
    for _ in range(200):
        logits = X @ W + b
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        g = (p - Y) / 300
        W, b = W - (X.T @ g) * 0.1, b - g.sum(0) * 0.1
    np.testing.assert_allclose(numbers(texts[-2]), W.ravel(), rtol=1e-3, atol=1e-4)
    accuracy = float(texts[-1])
    want = ((X @ W + b).argmax(1) == labels).mean()
    assert abs(accuracy - want) < 1e-6 and accuracy > 0.95


def test_sentence_embeddings_match_sentence_transformers():
    # The notebook's seven sentences are the fixture's first seven; the
    # fixture holds what sentence-transformers on torch computed for them
    # (tests/minilm_reference.py), so the similarity matrix must agree.
    texts = run("sentence-embeddings.ipynb")
    fixture = NOTEBOOKS[0].parent.parent / "models" / "bert" / "testdata" / "minilm_reference"
    E = np.load(fixture.with_suffix(".npy"))[:7]
    np.testing.assert_allclose(numbers(texts[-1]), (E @ E.T).ravel(), atol=1e-5)
    assert "cafe naive resume : super ##cal" in texts[1]
    assert "Someone is having a meal.      -> A man is eating food." in texts[-2]
