"""Jit options through the real kernel (jupyter_client): a %%jit cell's
overrides, a hook's one fallback warning, debug output, %jit --stats."""
import re

import pytest
from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


@pytest.fixture(scope="module")
def kc():
    km, client = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    yield client
    client.stop_channels()
    km.shutdown_kernel(now=False)


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    assert reply["content"]["status"] == "ok", reply["content"]
    out = {"stdout": "", "stderr": ""}
    for m in msgs:
        if m["msg_type"] == "stream":
            out[m["content"]["name"]] += m["content"]["text"]
    return out


def stats_row(kc, name):
    table = run(kc, "%jit --stats")["stdout"].splitlines()
    head = table[0]
    row = next(line for line in table if line.split()[0] == name)
    return lambda col: row[head.index(col):].split()[0]


def test_cell_overrides_then_function_options(kc):
    run(kc, "func f(x *emily.Tensor) *emily.Tensor { return emily.Exp(x) }\nx := emily.Ones(3)")
    run(kc, "%jit f")
    run(kc, "%%jit native=false\nfmt.Println(f(x).ToFloat32s())")
    run(kc, "fmt.Println(f(x).ToFloat32s())")
    table = run(kc, "%jit --stats")["stdout"]
    assert re.search(r"^f\s+2\s+native 1, eval 1\s", table, re.M), table


def test_hook_warns_once_and_debug_prints_nodes(kc):
    run(kc, """%jit h
func h(x *emily.Tensor) *emily.Tensor {
	return emily.Sum(emily.Hook(emily.Exp(x), "exp", func(t *emily.Tensor) { fmt.Println("seen", t.Shape()) }))
}""")
    outs = [run(kc, "fmt.Println(h(emily.Zeros(2)).Item())") for _ in range(3)]
    assert all(o["stdout"] == "seen [2]\n2\n" for o in outs), outs
    warnings = sum(o["stderr"].count("runs in the evaluator lane (fallback=eval)") for o in outs)
    assert warnings == 1, outs
    col = stats_row(kc, "h")
    assert col("fallbacks") == "1" and col("calls") == "3"
    out = run(kc, "%%jit debug=true\nh(emily.Zeros(2))")
    assert re.search(r"debug h: node \d+ \(exp float32\[2\]\) <- \(float32\[2\]\) [0-9.]+[µmn]?s", out["stdout"]), out
