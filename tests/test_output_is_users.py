"""The user's output and fds, through a real Jupyter client (issue 19,
"Output is the user's", "History and %replay keep every cell", "Replay
protection"): large writes are chunked with the kernel's memory bounded,
closing or redirecting fds 1 and 2 is the user's business, crash-looking
text is text, a goroutine's late output reaches the notebook, a replayed
signed message is dropped, and a huge value does not cost the history."""
import pathlib
import queue
import time

import pytest
from jupyter_client.manager import start_new_kernel

TIMEOUT = 60
LIMIT = 64 << 10  # the most one stream message carries


@pytest.fixture
def kernel(tmp_path):
    log = open(tmp_path / "kernel.log", "w")
    km, kc = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT, stdout=log, stderr=log)
    try:
        yield km, kc, tmp_path / "kernel.log"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        log.close()


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    assert reply["content"]["status"] == "ok", (code, reply["content"])
    return reply, msgs


def streams(msgs, name="stdout"):
    return "".join(m["content"]["text"] for m in msgs if m["msg_type"] == "stream" and m["content"]["name"] == name)


def peak_rss_mb(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_one_100mb_write_is_chunked_and_memory_bounded(kernel):
    km, kc, _ = kernel
    run(kc, 'import "os"')
    pid = km.provisioner.process.pid
    before = peak_rss_mb(pid)
    start = time.monotonic()
    _, msgs = run(kc, 'os.Stdout.Write(make([]byte, 100<<20))\nfmt.Print("end")')
    sizes = [len(m["content"]["text"]) for m in msgs if m["msg_type"] == "stream"]
    assert sum(sizes) == (100 << 20) + 3, sum(sizes)
    assert max(sizes) <= LIMIT, f"a stream message of {max(sizes)} bytes"
    grew = peak_rss_mb(pid) - before
    print(f"100 MB write: {len(sizes)} messages in {time.monotonic() - start:.1f} s; kernel peak grew {grew:.0f} MB")
    # It was 762 MB; with 64 KiB messages and the iopub backlog bounded
    # the kernel holds a few MiB of it at a time.
    assert grew < 100, f"the kernel's peak RSS grew by {grew:.0f} MB for one 100 MB write"


def test_closing_fd1_leaves_the_users_files_alone(kernel, tmp_path):
    km, kc, log = kernel
    run(kc, 'import (\n\t"os"\n\t"syscall"\n)')
    run(kc, "syscall.Close(1)")
    path = tmp_path / "mine.txt"
    _, msgs = run(kc, f'f, err := os.Create("{path}")\nfmt.Println(f.Fd(), err)')
    assert streams(msgs).startswith("1 <nil>"), streams(msgs)  # the user's file is fd 1 now
    for code in ['f.WriteString("user bytes")', 'fmt.Println("a cell")', 'f.Close()']:
        start = time.monotonic()
        run(kc, code)
        assert time.monotonic() - start < 1.5, f"{code!r} took {time.monotonic() - start:.1f} s"
    assert path.read_bytes() == b"user bytes"


def test_crash_looking_text_is_only_text(kernel):
    km, kc, _ = kernel
    run(kc, 'import "syscall"')
    _, msgs = run(kc, 'syscall.Write(2, []byte("fatal error: only words\\n"))')
    assert streams(msgs, "stderr") == "fatal error: only words\n"
    _, msgs = run(kc, 'fmt.Println("next")\nsyscall.Write(2, []byte("more\\n"))')
    assert streams(msgs) == "next\n" and streams(msgs, "stderr") == "more\n", msgs


def test_goroutine_output_after_its_cell_reaches_the_notebook(kernel):
    km, kc, log = kernel
    run(kc, 'import (\n\t"syscall"\n\t"time"\n)')
    reply, msgs = run(kc, 'go func() {\n\ttime.Sleep(500 * time.Millisecond)\n\tfmt.Println("late line")\n'
                          '\tsyscall.Write(2, []byte("late fd 2\\n"))\n}()')
    assert "late" not in streams(msgs)
    cell = reply["parent_header"]["msg_id"]
    late = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not ("late line" in streams(late) and "late fd 2" in streams(late, "stderr")):
        try:
            m = kc.get_iopub_msg(timeout=0.5)
        except queue.Empty:
            continue
        if m["msg_type"] == "stream":
            late.append(m)
    assert streams(late) == "late line\n" and streams(late, "stderr") == "late fd 2\n", late
    assert all(m["parent_header"]["msg_id"] == cell for m in late), "late output belongs to the cell that started it"
    assert "late" not in log.read_text(), "late output reached the Jupyter server's terminal"


def test_a_replayed_signed_request_is_dropped(kernel):
    km, kc, log = kernel
    run(kc, "n := 0")
    msg = kc.session.msg("execute_request", {"code": "n++\nn", "silent": False, "store_history": True,
                                             "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    for _ in range(2):
        kc.session.send(kc.shell_channel.socket, msg)
    replies = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            r = kc.get_shell_msg(timeout=0.5)
        except queue.Empty:
            continue
        if r["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            replies.append(r)
    assert len(replies) == 1, f"{len(replies)} replies to one signed request sent twice"
    _, msgs = run(kc, "n")
    assert [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"] == ["1"]
    assert "signature was seen before" in log.read_text()


def test_history_survives_a_70mb_value(kernel):
    km, kc, _ = kernel
    run(kc, 'import "strings"')
    _, msgs = run(kc, 'strings.Repeat("x", 70<<20)')
    shown = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]
    assert shown and len(shown[0]) > 64 << 20, "the value must be larger than the old 64 MiB line limit"
    run(kc, "after := 1")
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=TIMEOUT)
    msg_id = kc.history(hist_access_type="tail", n=3, output=True, raw=True)
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["parent_header"]["msg_id"] == msg_id
    hist = reply["content"]["history"]
    inputs = [h[2][0] for h in hist]
    assert inputs[-2:] == ['strings.Repeat("x", 70<<20)', "after := 1"], inputs
    assert len(hist[-2][2][1]) == len(shown[0]), "the large output comes back whole"
