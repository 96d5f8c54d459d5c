"""The protocol features beyond running cells, through jupyter_client:
stdin (input_request), history across a restart, inspect, the pager,
what C++ writes to fds 1 and 2, and how errors render."""
import time

import pytest
from jupyter_client.manager import start_new_kernel

from test_kernel import TIMEOUT, of_type, run, stdout_of


@pytest.fixture(scope="module")
def kernel():
    km, client = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    yield km, client
    client.stop_channels()
    km.shutdown_kernel(now=False)


@pytest.fixture
def kc(kernel):
    return kernel[1]


def execute_with_input(kc, code, answers):
    """Runs code with allow_stdin, answering each input_request from
    answers; returns (reply content, iopub messages, prompts seen)."""
    msgs, prompts = [], []
    answers = list(answers)

    def on_stdin(msg):
        prompts.append(msg["content"])
        kc.input(answers.pop(0))

    reply = kc.execute_interactive(code, timeout=TIMEOUT, allow_stdin=True,
                                   output_hook=msgs.append, stdin_hook=on_stdin)
    return reply["content"], msgs, prompts


def test_stdin_scanln_and_bufio(kc):
    code = ('import ("bufio"; "os"; "strings")\nvar name string\nfmt.Print("Name: ")\nfmt.Scanln(&name)\n'
            'r := bufio.NewReader(os.Stdin)\nline, _ := r.ReadString(\'\\n\')\n'
            'fmt.Printf("hello %s and %s\\n", name, strings.TrimSpace(line))')
    content, msgs, prompts = execute_with_input(kc, code, ["Emily", "Go"])
    assert content["status"] == "ok", content
    assert len(prompts) == 2 and prompts[0]["password"] is False
    assert stdout_of(msgs) == "Name: hello Emily and Go\n"


def test_stdin_refused_reads_eof(kc):
    # allow_stdin false (nbclient, papermill): reads end at once with EOF.
    msgs = []
    content = kc.execute_interactive("var v string\nn, err := fmt.Scanln(&v)\nfmt.Println(n, err)",
                                     timeout=TIMEOUT, allow_stdin=False, output_hook=msgs.append)["content"]
    assert content["status"] == "ok"
    assert stdout_of(msgs) == "0 EOF\n"


def test_interrupt_while_waiting_for_input(kernel):
    km, kc = kernel
    msg_id = kc.execute("var v string\nfmt.Scanln(&v)\nfor {}", allow_stdin=True)
    req = kc.get_stdin_msg(timeout=TIMEOUT)
    assert req["msg_type"] == "input_request"
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=TIMEOUT)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=TIMEOUT)
    assert reply["content"]["status"] == "error"
    content, msgs = run(kc, "1 + 1")
    assert of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "2"


def test_inspect_shows_signature_and_doc(kc):
    run(kc, "t := emily.Arange(6)")
    for code, want in [("emily.Reshape", "func Reshape("), ("strings.ToUpper(", "ToUpper returns"),
                       ("t.Sum", "func (t *Tensor) Sum("), ("t", "*emily.Tensor")]:
        kc.inspect(code, len(code))
        reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
        assert reply["found"], code
        assert want in reply["data"]["text/plain"], (code, reply["data"]["text/plain"])
    kc.inspect("noSuchThing", 5)
    assert kc.get_shell_msg(timeout=TIMEOUT)["content"]["found"] is False


def test_help_is_paged_as_markdown(kc):
    content, msgs = run(kc, "%help")
    page = content["payload"][0]
    assert page["source"] == "page"
    assert page["data"]["text/markdown"].startswith("# Emily for Go")
    assert not stdout_of(msgs), "paged help must not be printed too"


def test_fd_output_reaches_the_notebook(kc):
    # What C++ writes to fds 1 and 2 (MLX warnings, the shim) is the cell's.
    content, msgs = run(kc, 'import "syscall"\nsyscall.Write(2, []byte("native warning\\n"))\n'
                            'syscall.Write(1, []byte("native out\\n"))')
    assert content["status"] == "ok"
    streams = {c["name"]: c["text"] for c in of_type(msgs, "stream")}
    assert streams.get("stderr") == "native warning\n"
    assert streams.get("stdout") == "native out\n"


def test_error_traceback_renders_like_ipython(kc):
    content, msgs = run(kc, 'x := 1\n\nvar n int = "s"')
    assert content["status"] == "error"
    n = content["execution_count"]
    tb = of_type(msgs, "error")[0]["traceback"]
    assert tb[0].startswith("\x1b[1;31mCompileError\x1b[0m: "), tb
    assert f"Cell In[{n}], line 3" in tb[1], tb
    assert any('var n int = "s"' in l for l in tb) and any("^" in l for l in tb), tb
    assert content["ename"] == "CompileError" and f"cell{n}:3:" in content["evalue"]


def test_history_persists_across_a_restart(kernel):
    km, kc = kernel
    marker = f"persisted := {int(time.time())}"
    run(kc, marker)
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=TIMEOUT)
    kc.history(hist_access_type="search", pattern="persisted := *", n=1, output=False, raw=True)
    hist = kc.get_shell_msg(timeout=TIMEOUT)["content"]["history"]
    assert [h[2] for h in hist] == [marker]
    session_before = hist[0][0]
    run(kc, "after := 1")
    kc.history(hist_access_type="range", session=0, start=1, output=False, raw=True)
    now = kc.get_shell_msg(timeout=TIMEOUT)["content"]["history"]
    assert [h[2] for h in now] == ["after := 1"] and now[0][0] == session_before + 1


def test_completion_kinds_for_jupyterlab(kc):
    run(kc, "tensorVar := emily.Arange(3)")
    kc.complete("emily.Arang", 11)
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    types = {t["text"]: t["type"] for t in reply["metadata"]["_jupyter_types_experimental"]}
    assert types["emily.Arange"] == "function"
    assert all(t["start"] == reply["cursor_start"] and t["end"] == reply["cursor_end"]
               for t in reply["metadata"]["_jupyter_types_experimental"])
    kc.complete("tensorVar.Resh", 14)
    reply = kc.get_shell_msg(timeout=TIMEOUT)["content"]
    assert {t["text"]: t["type"] for t in reply["metadata"]["_jupyter_types_experimental"]} == {"tensorVar.Reshape": "method"}


def test_load_replaces_the_cell_and_reset_starts_afresh(kc, tmp_path):
    f = tmp_path / "lib.go"
    f.write_text("func square(n int) int { return n * n }\n")
    content, _ = run(kc, f"%load {f}")
    assert content["status"] == "ok", content
    [p] = content["payload"]
    assert p["source"] == "set_next_input" and p["replace"] is True
    assert p["text"] == f"// %load {f}\nfunc square(n int) int {{ return n * n }}\n"
    content, _ = run(kc, p["text"])  # what the front end runs next
    content, msgs = run(kc, "square(7)")
    assert of_type(msgs, "execute_result")[0]["data"]["text/plain"] == "49"
    content, msgs = run(kc, "%reset -f")
    assert content["status"] == "ok" and "fresh session" in stdout_of(msgs)
    content, _ = run(kc, "square(7)")
    assert content["status"] == "error" and "undefined: square" in content["evalue"]
