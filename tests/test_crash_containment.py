"""Crash containment through a real Jupyter client: the kernel (the wire
front end) survives what kills its session process, reports it, and
%replay brings the state back (issue 10)."""
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    return reply["content"], msgs


def result_text(msgs):
    return [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]


def start():
    return start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)


def test_stack_overflow_is_reported_and_replayed():
    km, kc = start()
    try:
        assert run(kc, "x := 40")[0]["status"] == "ok"
        assert run(kc, "func r(n int) int { return r(n+1) + 1 }")[0]["status"] == "ok"
        start_time = time.monotonic()
        content, msgs = run(kc, "r(0)")
        elapsed = time.monotonic() - start_time
        assert content["status"] == "error"
        assert content["ename"] == "SessionCrashed", content
        assert "stack overflow" in content["evalue"] and "r(0)" in content["evalue"]
        assert [m for m in msgs if m["msg_type"] == "error"], "the crash is shown in the notebook"
        assert km.is_alive(), "the kernel process itself must survive"
        # The same kernel answers, with a fresh session.
        assert run(kc, "x")[0]["status"] == "error"
        content, msgs = run(kc, "%replay")
        assert content["status"] == "ok", content
        content, msgs = run(kc, "x + 2")
        assert result_text(msgs) == ["42"]
        print(f"stack overflow to fresh session: {elapsed:.2f} s")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_panic_in_a_callback_keeps_the_session():
    """A time.AfterFunc callback that panics is reported with the next
    reply; the session and its variables are kept (issue 17)."""
    km, kc = start()
    try:
        run(kc, 'import "time"')
        run(kc, "x := 41")
        content, set_msgs = run(kc, 'time.AfterFunc(50*time.Millisecond, func() { panic("x") })')
        assert content["status"] == "ok"
        time.sleep(0.5)
        content, msgs = run(kc, "x + 1")
        assert content["status"] == "ok", content
        assert result_text(msgs) == ["42"]
        stderr = "".join(m["content"]["text"] for m in set_msgs + msgs if m["msg_type"] == "stream" and m["content"]["name"] == "stderr")
        assert "panic in a callback" in stderr and "x" in stderr, stderr
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_nil_tensor_shows_and_the_session_goes_on():
    km, kc = start()
    try:
        run(kc, "var tz *emily.Tensor")
        run(kc, "kept := 3")
        content, msgs = run(kc, "tz")
        assert content["status"] == "ok", content
        assert result_text(msgs) == ["Tensor <nil>"]
        content, msgs = run(kc, "[]*emily.Tensor{tz, nil}")
        assert result_text(msgs) == ["[Tensor <nil> Tensor <nil>]"]
        assert result_text(run(kc, "kept")[1]) == ["3"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_interrupt_of_a_blocked_cell_keeps_the_session():
    """The stop button on time.Sleep or a lock stops the cell; the session
    and its variables are kept (it used to restart, issue 17)."""
    km, kc = start()
    try:
        run(kc, 'import (\n\t"sync"\n\t"time"\n)')
        run(kc, "kept := 41")
        for code in ["time.Sleep(30 * time.Second)", "var mu sync.Mutex\nmu.Lock()\nmu.Lock()"]:
            msg_id = kc.execute(code)
            time.sleep(1.0)
            started = time.monotonic()
            km.interrupt_kernel()
            reply = kc.get_shell_msg(timeout=TIMEOUT)
            while reply["parent_header"].get("msg_id") != msg_id:
                reply = kc.get_shell_msg(timeout=TIMEOUT)
            assert reply["content"]["status"] == "error"
            assert reply["content"]["ename"] == "Interrupted", reply["content"]
            assert time.monotonic() - started < 3
            content, msgs = run(kc, "kept + 1")
            assert result_text(msgs) == ["42"], (code, content)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
