#!/usr/bin/env bash
# bench-repl.sh [REV]: the eager 1M-element 100-op chain typed as top-level
# code, without a scope (bench/repl/chain.repl), in the REPL (a REPL file)
# and in the Jupyter kernel (one cell), beside MLX Python's eager chain
# (bench/peers.py, on the same libmlx.so), in turns, BENCH_ROUNDS rounds
# (default 3); prints each column's min–median–max and the ratios to MLX
# Python (issue 25: ≤ 1.5×). With REV, the emily-repl of that revision
# runs in each round too (built from `git archive` in /tmp), for a
# before/after (BEFORE_BIN=PATH: an emily-repl built already, instead of
# REV). Needs `make build` and .venv (jupyter_client, NumPy).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${BENCH_ROUNDS:-3}"
py="${PYTHON:-.venv/bin/python}"
bin="$PWD/bin/emily-repl"
export LD_LIBRARY_PATH="$PWD/.deps/mlx/mlx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
before="${BEFORE_BIN:-}"
if [[ -z "$before" && $# -ge 1 ]]; then
  src="$(mktemp -d /tmp/bench-repl-src.XXXXXX)"
  git archive "$1" | tar -x -C "$src"
  ln -s "$PWD/.deps" "$src/.deps"
  (cd "$src" && go build -o "$src/emily-repl" ./cmd/emily-repl)
  before="$src/emily-repl"
  echo "bench-repl: before = $1 ($(git rev-parse --short "$1")), after = the working tree's bin/emily-repl" >&2
fi
out="$(mktemp -d /tmp/bench-repl.XXXXXX)"
for r in $(seq "$rounds"); do
  if [[ -n "$before" ]]; then
    "$before" bench/repl/chain.repl >"$out/before.$r.json"
    "$py" bench/repl/kernel_chain.py "$before" bench/repl/chain.repl >"$out/before-kernel.$r.json"
  fi
  "$bin" bench/repl/chain.repl >"$out/repl.$r.json"
  "$py" bench/repl/kernel_chain.py "$bin" bench/repl/chain.repl >"$out/kernel.$r.json"
  "$py" bench/peers.py --site .deps/mlx --device cpu chain:1048576 >"$out/mlx.$r.json"
done
"$py" - "$out" "$rounds" <<'PY'
import json, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        return [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, rounds + 1)]
    except FileNotFoundError:
        return None
mlx = [d["chain:1048576/mlx"] for d in load("mlx")]
def row(label, ts, peaks=None):
    ms = sorted(t * 1e3 for t in ts)
    line = f"{label:<28} {ms[0]:8.1f} – {statistics.median(ms):8.1f} – {ms[-1]:8.1f} ms"
    if ts is not mlx:
        rs = sorted(t / m for t, m in zip(ts, mlx))  # same round's MLX Python
        line += f"   ÷ MLX Python {rs[0]:.2f} – {statistics.median(rs):.2f} – {rs[-1]:.2f}"
    if peaks:
        line += f"   peak {max(peaks) / 2**20:.0f} MB"
    print(line)
print(f"eager 1M 100-op chain, no scope, {rounds} interleaved rounds (min – median – max)")
row("MLX Python eager", mlx)
for name, label in [("before", "REPL file, before"), ("before-kernel", "kernel cell, before"), ("repl", "REPL file"), ("kernel", "kernel cell")]:
    ds = load(name)
    if ds:
        row(label, [d["seconds"] for d in ds], [d["peak_bytes"] for d in ds])
PY
