"""Slice and SetSlice against NumPy: internal/slicecheck draws random index
expressions (ints in and out of range, ranges with clamped and negative
bounds and steps, NewAxis, Ellipsis, one integer-array or bool-mask index),
applies them eagerly and jitted, and prints each case; NumPy replays it.
Results, shapes and which expressions are errors must all agree."""
import json
import subprocess

import numpy as np
import pytest

from conftest import ROOT


def numpy_key(items):
    key = []
    for it in items or []:
        k = it["k"]
        if k == "int":
            key.append(it.get("v", 0))
        elif k == "new":
            key.append(None)
        elif k == "ell":
            key.append(Ellipsis)
        elif k == "range":
            key.append(slice(it.get("a", 0) if it.get("ha") else None,
                             it.get("b", 0) if it.get("hb") else None,
                             it.get("c", 1)))
        elif k == "idx":
            key.append(np.array(it.get("ix") or [], dtype=np.int32).reshape(it["shape"]))
        elif k == "mask":
            key.append(np.array(it.get("m") or [], dtype=bool).reshape(it["shape"]))
    return tuple(key)


@pytest.mark.parametrize("seed", [1, 2])
def test_slicing_matches_numpy(seed):
    run = subprocess.run(["go", "run", "./internal/slicecheck", "-n", "1000", "-seed", str(seed)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    cases = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(cases) == 1000
    bad, errors = [], 0
    for c in cases:
        x = np.arange(int(np.prod(c["shape"])), dtype=np.int32).reshape(c["shape"])
        key = numpy_key(c["items"])
        try:
            if c["set"]:
                want = x.copy()
                want[key] = np.array(c.get("value") or [], dtype=np.int32).reshape(c.get("vshape") or [])
            else:
                want = x[key]
        except (IndexError, ValueError) as e:
            errors += 1
            if not c.get("err"):
                bad.append(f"case {c['case']}: NumPy raises {e!r}, emily gives a result: {c}")
            continue
        if c.get("err"):
            bad.append(f"case {c['case']}: emily raises {c['err']}, NumPy gives shape {want.shape}: {c}")
            continue
        shape = c.get("oshape") or []
        got = np.array(c.get("out") or [], dtype=np.int32).reshape(shape)
        jit = np.array(c.get("jit") or [], dtype=np.int32).reshape(shape)
        if got.shape != want.shape or not np.array_equal(got, want):
            bad.append(f"case {c['case']}: eager {got.tolist()} != NumPy {want.tolist()}: {c}")
        elif not np.array_equal(jit, want):
            bad.append(f"case {c['case']}: jitted {jit.tolist()} != NumPy {want.tolist()}: {c}")
    assert not bad, "\n".join(bad[:10])
    # The draw must exercise both results and errors.
    assert 50 < errors < len(cases) - 500
