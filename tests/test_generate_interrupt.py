"""The kernel's interrupt reaches a text generation running in compiled
code (llama's decode loop: no interpreted loop for the session's checks)
through emily.InterruptContext, and the session keeps its state."""
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT = 120


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    text = "".join(m["content"].get("text", "") for m in msgs if m["msg_type"] == "stream")
    return reply["content"], text


def test_kernel_interrupt_stops_generate():
    km, kc = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    try:
        content, _ = run(kc, 'import ("context"; "github.com/emily-go/emily/models/llama")\n'
                             'm, err := llama.Load(llama.DefaultPath())\nif err != nil { panic(err) }\nn := 0')
        assert content["status"] == "ok", content
        # Counting, unbounded: thousands of tokens unless stopped.
        msg_id = kc.execute(
            'ctx, done := emily.InterruptContext(context.Background())\ndefer done()\n'
            'res, err := m.Generate(ctx, m.Tokenizer().Encode("1, 2, 3, 4,", false, false), llama.Options{},\n'
            '\tfunc(llama.Token) error { n++; return nil })\n'
            'fmt.Println(res.Reason, err, context.Cause(ctx))')
        time.sleep(8)
        start = time.monotonic()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        took = time.monotonic() - start
        assert took < 10, f"the cell ended {took:.1f} s after the interrupt"
        assert km.is_alive()
        content, text = run(kc, 'fmt.Println("generated", n > 0)')
        assert content["status"] == "ok" and text == "generated true\n", (content, text)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
