"""The session a notebook can trust (issue 17), through a real Jupyter
client and the supervised kernel: showing any value, a panicking
callback, the stop button, the timing magics and late binding keep the
session and its variables."""
import re
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    return reply["content"], msgs


def result_text(msgs):
    return [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]


def stream(msgs, name):
    return "".join(m["content"]["text"] for m in msgs if m["msg_type"] == "stream" and m["content"]["name"] == name)


def ok(kc, code):
    content, msgs = run(kc, code)
    assert content["status"] == "ok", (code, content)
    return msgs


def start():
    return start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)


def test_the_session_survives_what_used_to_end_it():
    km, kc = start()
    try:
        ok(kc, 'import "time"')
        ok(kc, "kept := 41")
        # Showing nil and zero values, alone and in containers.
        ok(kc, "var tz *emily.Tensor")
        assert result_text(ok(kc, "tz")) == ["Tensor <nil>"]
        assert result_text(ok(kc, "map[string]*emily.Tensor{\"w\": tz}")) == ["map[w:Tensor <nil>]"]
        ok(kc, "new(emily.Tensor)")
        # A panicking callback is reported with the next reply.
        set_msgs = ok(kc, 'time.AfterFunc(50*time.Millisecond, func() { panic("tock") })')
        time.sleep(0.5)
        msgs = ok(kc, "kept + 1")
        assert result_text(msgs) == ["42"]
        stderr = stream(set_msgs, "stderr") + stream(msgs, "stderr")
        assert "panic in a callback" in stderr and "tock" in stderr, stderr
        # The stop button on time.Sleep stops the cell at its line.
        msg_id = kc.execute("x := 1\ntime.Sleep(30 * time.Second)")
        time.sleep(1.0)
        started = time.monotonic()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        assert reply["content"]["ename"] == "Interrupted", reply["content"]
        assert "interrupted at" in reply["content"]["evalue"] and ":2:" in reply["content"]["evalue"], reply["content"]
        assert time.monotonic() - started < 2
        assert result_text(ok(kc, "kept + x")) == ["42"]
        # display needs no import.
        msgs = ok(kc, 'display.HTML("<b>hi</b>")')
        assert [m["content"]["data"]["text/html"] for m in msgs if m["msg_type"] == "execute_result"] == ["<b>hi</b>"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_timeit_of_a_lazy_value_and_late_binding_after_jit():
    km, kc = start()
    try:
        ok(kc, "c := emily.Ones(256, 256)")
        out = stream(ok(kc, "%%timeit -n 2 -r 2\nd := emily.Matmul(c, c)\nd.Sum()"), "stdout")
        m = re.match(r"([0-9.]+) (s|ms|µs|ns) ±", out)
        assert m, out
        sec = float(m.group(1)) / {"s": 1, "ms": 1e3, "µs": 1e6, "ns": 1e9}[m.group(2)]
        assert sec > 100e-6, f"%%timeit timed graph building: {out}"
        ok(kc, "func step(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, emily.Scalar(2)) }")
        ok(kc, "func train(x *emily.Tensor) *emily.Tensor { return step(step(x)) }")
        ok(kc, "%jit step")
        assert "[4. 4.]" in result_text(ok(kc, "train(emily.Ones(2))"))[0]
        assert "native 2" in stream(ok(kc, "%jit --stats"), "stdout")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
