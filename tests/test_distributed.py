"""%distributed through jupyter_client: the kernel's cells run SPMD on two
MLX ring ranks (worker processes of the supervisor), output tagged by
rank, an interrupt stops every rank, %distributed off returns to the one
session with its variables."""
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


def run(kc, code):
    msgs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=msgs.append)
    return reply["content"], msgs


def stdout_of(msgs):
    return "".join(m["content"]["text"] for m in msgs
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def test_distributed_cells_run_on_every_rank_and_stop_on_interrupt():
    km, kc = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    try:
        content, _ = run(kc, "kept := 7")
        assert content["status"] == "ok", content
        content, msgs = run(kc, "%distributed 2")
        assert content["status"] == "ok", content
        assert "2 ranks" in stdout_of(msgs)
        content, msgs = run(kc, 'import "github.com/emily-go/emily/distributed"\n'
                                "g := distributed.World()\n"
                                'x := emily.FromSlice([]float32{float32(g.Rank() + 1), 10}, 2)\n'
                                'fmt.Println("sum", distributed.AllSum(x, g).ToFloat32s(), "rank", g.Rank(), "of", g.Size())')
        assert content["status"] == "ok", content
        out = stdout_of(msgs)
        assert "[rank 0] sum [3 20] rank 0 of 2\n" in out, out
        assert "[rank 1] sum [3 20] rank 1 of 2\n" in out, out

        # An interrupt reaches both ranks; the ranks and their state stay.
        msg_id = kc.execute('import "time"\nfor { time.Sleep(10 * time.Millisecond) }')
        time.sleep(1.5)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        assert reply["content"]["status"] == "error", reply["content"]
        assert reply["content"]["ename"] == "Interrupted", reply["content"]
        content, msgs = run(kc, "fmt.Println(g.Rank() * 100)")
        assert content["status"] == "ok", content
        out = stdout_of(msgs)
        assert "[rank 0] 0\n" in out and "[rank 1] 100\n" in out, out

        content, msgs = run(kc, "%distributed off")
        assert content["status"] == "ok", content
        content, msgs = run(kc, "fmt.Println(kept)")
        assert content["status"] == "ok", content
        assert stdout_of(msgs) == "7\n"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
