"""kernel_chain.py BINARY FILE: runs FILE (a REPL file, bench/repl/chain.repl)
as one cell of the Emily Jupyter kernel that BINARY installs, and prints
the cell's stdout (chain.repl's JSON line). The kernelspec goes to a
temporary JUPYTER_DATA_DIR, so nothing of the user's is touched."""
import os
import subprocess
import sys
import tempfile

binary, path = sys.argv[1], sys.argv[2]
data = tempfile.mkdtemp(prefix="emily-bench-kernel.")
os.environ["JUPYTER_DATA_DIR"] = data
os.environ["JUPYTER_PATH"] = data
os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
subprocess.run([binary, "install", "--user"], check=True, capture_output=True)

from jupyter_client.manager import start_new_kernel  # noqa: E402

km, kc = start_new_kernel(kernel_name="emily", startup_timeout=60)
try:
    code = open(path).read()
    out = []

    def hook(msg):
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    reply = kc.execute_interactive(code, timeout=600, output_hook=hook)
    if reply["content"]["status"] != "ok":
        sys.exit("kernel cell failed:\n" + "".join(out))
    print("".join(out).strip())
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
