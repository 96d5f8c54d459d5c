"""Soak: kernel cells and jitted calls on fresh inputs, through a real
Jupyter client. Prints the kernel's start-to-ready time, execute latency
(p50/p99, as the client sees it), RSS of the kernel and of its session
process, and MLX active memory, at the start and the end.

    python tests/soak.py --cells 5000        # make soak: 5,000 cells, 10,000 jitted calls

tests/test_soak.py runs a shortened soak in `make test` and asserts bounds
on memory growth only (timings are for reading, never asserted)."""
import argparse
import os
import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def children(pid):
    kids = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return kids


def run(kc, code):
    out = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=out.append)
    content = reply["content"]
    if content["status"] != "ok":
        raise RuntimeError(f"cell failed: {code!r}: {content.get('ename')}: {content.get('evalue')}")
    texts = [m["content"]["data"]["text/plain"] for m in out if m["msg_type"] == "execute_result"]
    return texts[0] if texts else None


def soak(cells, calls_per_cell=2, report=print):
    t0 = time.monotonic()
    km, kc = start_new_kernel(kernel_name="emily", startup_timeout=TIMEOUT)
    ready = time.monotonic() - t0
    try:
        kernel_pid = km.provisioner.process.pid
        run(kc, "func f(a *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Mul(a, a)) }")
        run(kc, "%jit f")
        run(kc, "func active() int { return int(emily.Memory().Active) }")
        for i in range(20):  # warm-up: traces, caches, first allocations
            run(kc, f"f(emily.Full({i}, 1000)).Item()")
        workers = children(kernel_pid)
        worker_pid = workers[0] if workers else None

        def snapshot():
            return {
                "kernel_rss_mb": rss_mb(kernel_pid),
                "session_rss_mb": rss_mb(worker_pid) if worker_pid else 0.0,
                "mlx_active_mb": int(run(kc, "active()")) / 2**20,
            }

        start = snapshot()
        latencies = []
        calls = 0
        for i in range(cells):
            # Fresh inputs every call; the value is checked against the formula.
            terms = " + ".join(f"f(emily.Full({i}+{k}*0.25, 1000)).Item()" for k in range(calls_per_cell))
            code = f"v{i % 7} := emily.Full({i}, 1000)\ns := {terms}\ns"
            t = time.monotonic()
            got = float(run(kc, code))
            latencies.append(time.monotonic() - t)
            calls += calls_per_cell
            want = sum(1000 * (i + k * 0.25) ** 2 for k in range(calls_per_cell))
            if abs(got - want) > 1e-4 * max(want, 1):  # float32 sums of 1000 terms
                raise AssertionError(f"cell {i}: got {got}, want {want}")
        end = snapshot()
        latencies.sort()
        figures = {
            "cells": cells,
            "jitted_calls": calls,
            "start_to_ready_s": ready,
            "p50_ms": 1000 * statistics.median(latencies),
            "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "start": start,
            "end": end,
        }
        report(f"soak: {cells} cells, {calls} jitted calls on fresh inputs")
        report(f"  kernel start to ready: {ready:.2f} s")
        report(f"  execute latency: p50 {figures['p50_ms']:.2f} ms, p99 {figures['p99_ms']:.2f} ms")
        for key, label in (("kernel_rss_mb", "kernel RSS (wire)"), ("session_rss_mb", "session RSS"),
                           ("mlx_active_mb", "MLX active memory")):
            report(f"  {label}: {start[key]:.1f} MB at start, {end[key]:.1f} MB at end")
        return figures
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, default=5000)
    ap.add_argument("--calls-per-cell", type=int, default=2)
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(__file__))
    import conftest  # noqa: F401  installs the kernelspec into a temporary Jupyter dir
    soak(args.cells, args.calls_per_cell)


if __name__ == "__main__":
    main()
