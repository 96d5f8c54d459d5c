"""The kernel driven by a real Jupyter client (jupyter_client)."""
import json
import time
import re

import numpy as np
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
    """Executes code and returns (reply content, iopub messages of the cell)."""
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    return reply["content"], msgs


def shell_reply(kc, msg_id):
    """The shell reply to msg_id, skipping replies to earlier requests."""
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
    return reply


def of_type(msgs, kind):
    return [m["content"] for m in msgs if m["msg_type"] == kind]


def stdout_of(msgs):
    return "".join(c["text"] for c in of_type(msgs, "stream") if c["name"] == "stdout")


def test_kernelspec_installed(data_dir, binary):
    spec = json.loads((data_dir / "kernels" / "emily" / "kernel.json").read_text())
    assert spec["argv"][:2] == [str(binary), "kernel"]
    assert spec["language"] == "go"


def test_kernel_info(kc):
    kc.kernel_info()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["content"]["status"] == "ok"
    assert reply["content"]["language_info"]["name"] == "go"
    assert reply["content"]["protocol_version"].startswith("5.")


def test_jit_cell_shows_tensor_preview(kc):
    content, _ = run(kc, "x := emily.Arange(6).Reshape(2, 3)")
    assert content["status"] == "ok"
    content, _ = run(kc, """
func f(a *emily.Tensor) *emily.Tensor {
	return emily.Add(emily.Mul(a, a), emily.Scalar(1))
}""")
    assert content["status"] == "ok"
    content, msgs = run(kc, "%jit f\nf(x)")
    assert content["status"] == "ok", content
    results = of_type(msgs, "execute_result")
    assert len(results) == 1
    assert results[0]["data"]["text/plain"] == "Tensor float32[2 3]\n[[ 1.  2.  5.]\n [10. 17. 26.]]"
    assert "<table" in results[0]["data"]["text/html"]


def test_native_and_evaluator_lanes_match_numpy(kc):
    code = """
func g(a, b *emily.Tensor) *emily.Tensor {
	h := emily.Tanh(emily.Matmul(a, b))
	return emily.Div(emily.Exp(h), emily.SumKeepDims(emily.Exp(h), -1))
}
a := emily.FromSlice([]float32{0.1, -0.2, 0.3, 0.4, 0.5, -0.6}, 2, 3)
b := emily.FromSlice([]float32{0.3, -0.1, 0.2, 0.5, -0.4, 0.6, 1, 2, 3, 4, 5, 6}, 3, 4)
"""
    content, _ = run(kc, code)
    assert content["status"] == "ok", content
    a = np.array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6], dtype=np.float32).reshape(2, 3)
    b = np.array([0.3, -0.1, 0.2, 0.5, -0.4, 0.6, 1, 2, 3, 4, 5, 6], dtype=np.float32).reshape(3, 4)
    h = np.tanh(a @ b)
    want = np.exp(h) / np.exp(h).sum(-1, keepdims=True)
    lanes = {}
    for opts in ["", "native=false", "fuse=true"]:
        content, msgs = run(kc, f"%jit {opts} g\nfmt.Println(g(a, b).ToFloat64s())")
        assert content["status"] == "ok", (opts, content)
        got = np.array([float(v) for v in re.findall(r"[-0-9.e]+", stdout_of(msgs))]).reshape(2, 4)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        lanes[opts] = got
    assert np.array_equal(lanes[""], lanes["native=false"]), "native and evaluator lanes differ"


def test_error_then_session_goes_on(kc):
    content, msgs = run(kc, "emily.Matmul(emily.Zeros(2, 3), emily.Zeros(4, 5))")
    assert content["status"] == "error"
    errors = of_type(msgs, "error")
    assert errors and "emily.Matmul(float32[2 3], float32[4 5])" in "\n".join(errors[0]["traceback"]) + errors[0]["evalue"]
    content, _ = run(kc, "undefinedThing + 1")
    assert content["status"] == "error"
    content, msgs = run(kc, "x.Shape()")
    assert content["status"] == "ok"
    assert of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "[2 3]"


def test_stdout_streams(kc):
    content, msgs = run(kc, 'fmt.Println("hello from go")')
    assert content["status"] == "ok"
    assert stdout_of(msgs) == "hello from go\n"
    assert not of_type(msgs, "execute_result"), "fmt.Println must not show a value"


def test_interrupt_stops_a_runaway_cell_and_the_session_survives():
    km, client = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    try:
        run(client, "n := 0")
        msg_id = client.execute("for { n++ }")
        time.sleep(1.0)
        km.interrupt_kernel()  # interrupt_mode "message": an interrupt_request on control
        reply = shell_reply(client, msg_id)
        assert reply["content"]["status"] == "error"
        assert km.is_alive()
        content, msgs = run(client, "n > 0")
        assert content["status"] == "ok"
        assert of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "true"
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def test_interrupt_stops_the_cells_command():
    """The notebook's stop button ends a command the cell waits for (it ran
    on, unseen, after the cell was abandoned), at once: the kernel catches
    SIGINT rather than ignoring it, so its commands do not inherit SIG_IGN."""
    import subprocess
    km, client = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    try:
        run(client, 'import "os/exec"')
        msg_id = client.execute('exec.Command("sleep", "91.25").Run()')
        deadline = time.time() + 20
        while subprocess.run(["pgrep", "-f", "sleep 91.25"], capture_output=True).returncode != 0:
            assert time.time() < deadline, "the command never started"
            time.sleep(0.1)
        start = time.time()
        km.interrupt_kernel()
        reply = shell_reply(client, msg_id)
        assert time.time() - start < 2.5, "the interrupt waited for the SIGKILL"
        assert subprocess.run(["pgrep", "-f", "sleep 91.25"], capture_output=True).returncode != 0, "the command still runs"
        content, _ = run(client, "1 + 1")
        assert content["status"] == "ok"
    finally:
        subprocess.run(["pkill", "-f", "sleep 91.25"])
        client.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_cell_is_a_go_file_and_errors_name_the_cell(kc):
    # Declarations in any order, an import used in its own cell, package
    # main accepted, main an ordinary function.
    content, msgs = run(kc, 'package main\n\nimport "strings"\n\nfunc main() { fmt.Println(up("go")) }\n\nfunc up(s string) string { return strings.ToUpper(s) }\n\nmain()')
    assert content["status"] == "ok", content
    assert stdout_of(msgs) == "GO\n"
    content, msgs = run(kc, "\nvar n int = \"s\"")
    assert content["status"] == "error"
    assert f"cell{content['execution_count']}:2:" in content["evalue"], content


def test_session_grammar_magics_scoping_and_is_complete(kc):
    # Line magics after comments and mid-cell run in order; the cell's
    # declarations come first, so %jit h reaches the call below it.
    content, msgs = run(kc, "// a comment first\n%config")
    assert content["status"] == "ok", content
    assert "native=" in stdout_of(msgs)
    content, msgs = run(kc, 'func h(a *emily.Tensor) *emily.Tensor { return emily.Add(a, a) }\n%jit h\nfmt.Println(h(emily.Ones(2)).Sum().Item())\n%jit')
    assert content["status"] == "ok", content
    out = stdout_of(msgs)  # the call's line, then %jit's listing (the kernel is shared)
    assert out.startswith("4\n") and "\nh (default options)\n" in out, out
    # Go's scoping: a block's := shadows; a loop variable ends with its loop.
    run(kc, "sx := 1")
    content, msgs = run(kc, "{\n\tsx := 2\n\t_ = sx\n}\nfor lu := 0; lu <= 100; lu += 10 {\n}\nfmt.Println(sx)")
    assert content["status"] == "ok", content
    assert stdout_of(msgs) == "1\n"
    content, _ = run(kc, "lu")
    assert content["status"] == "error" and "undefined: lu" in content["evalue"], content
    _, msgs = run(kc, "%whos")
    assert re.search(r"^sx\s", stdout_of(msgs), re.M) and not re.search(r"^lu\s", stdout_of(msgs), re.M), stdout_of(msgs)
    # No wrapper text in messages.
    content, _ = run(kc, "y := sx +")
    assert content["status"] == "error" and "found the end of the cell" in content["evalue"], content
    # is_complete comes from the session's grammar.
    for code, status in [("func f() {", "incomplete"), ("x := 1\n%whos", "complete"), ("x := )", "invalid")]:
        msg_id = kc.is_complete(code)
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == status, (code, reply["content"])
