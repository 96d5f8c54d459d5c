"""Differential test of every op in the spec against NumPy.

`go run ./internal/opcheck/run` calls every public op function of the
spec (internal/opspec) on every supported dtype and sample shape, eagerly
and in the native, evaluator and fuse jit lanes (it fails on its own when
native or evaluator differ from eager by one bit, or fuse drifts more than
opcheck.FuseULP), and writes the operands and results as .npy files with a
manifest. This test then evaluates each row's NumPy expression on the same
operands and compares, exactly for integers and bool and within a
per-dtype tolerance for floats.
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import numpy_refs

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Relative, absolute tolerance by result dtype (float32's relative bound is
# multiplied by a row's Tol when it gives one).
TOL = {
    "float64": (1e-12, 1e-12),
    "float32": (2e-5, 1e-6),
    "complex64": (2e-5, 1e-5),
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}

NP_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "complex64": np.complex64,
    # NumPy has no bfloat16: operands arrive widened to float32.
    "bfloat16": np.float32,
}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    # EMILY_OPCHECK_DIR compares a run made elsewhere (the GPU machine has
    # no Go toolchain: scripts/gpu-check.sh runs a prebuilt opcheck there
    # and brings back its directory, with the run's output in summary.txt).
    done = os.environ.get("EMILY_OPCHECK_DIR")
    if done:
        out = pathlib.Path(done)
        with open(out / "manifest.json") as f:
            summary = (out / "summary.txt").read_text() if (out / "summary.txt").exists() else ""
            return out, json.load(f), summary.strip()
    out = tmp_path_factory.mktemp("opcheck")
    proc = subprocess.run(
        ["go", "run", "./internal/opcheck/run", "-out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )
    print(proc.stdout)
    assert proc.returncode == 0, "lane check failed:\n" + proc.stderr[-8000:] + proc.stdout[-2000:]
    with open(out / "manifest.json") as f:
        return out, json.load(f), proc.stdout.strip()


def attr_env(case):
    env = {}
    for k, v in (case["attrs"] or {}).items():
        if k == "dtype" or (isinstance(v, str) and v in NP_DTYPES and k.endswith("dtype")):
            v = NP_DTYPES[v]
        elif k == "axes" and isinstance(v, list):
            v = tuple(v) if v else None
        elif isinstance(v, list):
            v = tuple(v)
        env[k] = v
    return env


def expected(case, ins):
    env = {"np": np, **numpy_refs.HELPERS}
    if case["list"]:
        env[case["operands"][0]] = ins
    else:
        env.update(zip(case["operands"] or [], ins))
    env.update(attr_env(case))
    with np.errstate(all="ignore"):
        return eval(case["numpy"], env)


def compare(case, i, got, want, out_dtype):
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"result {i}: shape {got.shape}, NumPy {want.shape}"
    if out_dtype in TOL:
        rtol, atol = TOL[out_dtype]
        if out_dtype in ("float32", "complex64") and case["tol"]:
            rtol *= case["tol"]
            atol *= case["tol"]
        if out_dtype in ("float16", "bfloat16") and case.get("tol_half"):
            rtol *= case["tol_half"]
            atol *= case["tol_half"]
        if out_dtype == "float64" and case.get("tol64"):
            rtol = atol = case["tol64"]
        w = want.astype(np.complex128 if np.iscomplexobj(want) or np.iscomplexobj(got) else np.float64)
        g = got.astype(w.dtype)
        if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
            idx = np.argwhere(bad)[:3].tolist()
            return f"result {i}: {int(bad.sum())} of {g.size} differ, e.g. at {idx}: {g[bad][:3]} vs NumPy {w[bad][:3]}"
        return None
    if not np.array_equal(got, want.astype(got.dtype)):
        return f"result {i}: {got.ravel()[:8]} vs NumPy {want.ravel()[:8]}"
    return None


def test_every_op_matches_numpy(manifest):
    out, cases, summary = manifest
    failures = []
    compared = 0
    for case in cases:
        if not case["numpy"]:
            continue
        ins = [np.load(out / f) for f in case["inputs"] or []]
        try:
            want = expected(case, ins)
        except Exception as e:  # a broken NumPy expression is a spec bug
            failures.append(f"{case['id']}: NumPy expression {case['numpy']!r} failed: {e!r}")
            continue
        wants = list(want) if len(case["outputs"]) > 1 else [want]
        for i, f in enumerate(case["outputs"]):
            why = compare(case, i, np.load(out / f), wants[i], case["out_dtypes"][i])
            if why:
                failures.append(f"{case['id']}: {why}")
        compared += 1
    ops = {c["op"] for c in cases}
    pairs = {(c["op"], c["dtype"]) for c in cases}
    print(f"\n{summary}\nNumPy comparison: {compared} cases, {len(ops)} ops, {len(pairs)} ops x dtypes")
    assert not failures, f"{len(failures)} cases differ from NumPy:\n" + "\n".join(failures[:60])


def test_ops_md_lists_every_op_checked(manifest):
    _, cases, _ = manifest
    checked = {c["op"] for c in cases}
    text = (ROOT / "OPS.md").read_text()
    # An op row has the op's seven columns; the two-column table of edge
    # inputs (what zeros, empties and bad attributes give) is not one.
    rows = [line for line in text.splitlines() if line.startswith("| `") and line.count(" | ") >= 6]
    listed = {line.split("`")[1] for line in rows}
    # Send and Recv need a peer: the one-process check leaves them out, and
    # distributed/distributed_test.go checks them on two ring ranks.
    peer_ops = {"Send", "Recv"}
    assert len(rows) == len(listed), "OPS.md lists an op twice"
    assert listed - checked == peer_ops and checked <= listed, (
        f"OPS.md has {len(rows)} op rows, the check ran {len(checked)} ops: "
        f"listed, not checked: {sorted(listed - checked)}; checked, not listed: {sorted(checked - listed)}")
