#!/usr/bin/env bash
# check-fuse-math.sh [--no-fma]: checks the fuse lane's float exp, log,
# log2 and log10 (fusevecmath.go's exp, fuselog.go's logs, in the header)
# on all 2^32 inputs against a double-precision reference, beside glibc's
# and MLX's own, and the logs bit for bit against the C library's logf,
# log2f and log10f: fuselog.go's are glibc's algorithms, and the line
# "N results differ from glibc's" must say 0 (BENCHMARKS.md). Builds the
# kernels the way the fuse lane does, with the forced header Emily wrote
# into its cache (run any fused CPU kernel first, e.g. the fuse tests).
# --no-fma also checks the logs built with -mno-fma (the header's form for
# hosts without FMA: two roundings where glibc's FMA build has one).
# About a minute of CPU per function.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${XDG_CACHE_HOME:-$HOME/.cache}/emily/fuse-cxx"
# The newest header with the inline math (other checkouts' older Emily may
# have written headers without it into the same cache).
header="$(grep -l emily_vec "$cache"/libmvec-*.h 2>/dev/null | xargs -r ls -t | head -1)"
if [[ -z "$header" ]]; then
  echo "check-fuse-math: no fuse-lane header with the inline math under $cache: run a fused CPU kernel first" >&2
  exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++17 -O3 -w -fPIC -shared -I .deps/mlx/mlx/include -march=native -mprefer-vector-width=512 -ffp-contract=off -fno-math-errno -fno-trapping-math -finline-limit=1000)
mvec=""
for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /usr/lib; do # fusevec.go's libmvecDirs
  if [[ -e "$d/libmvec.so.1" ]]; then mvec="$d/libmvec.so.1"; break; fi
done
if [[ -z "$mvec" ]]; then
  echo "check-fuse-math: no libmvec.so.1: the fuse lane uses MLX's own command on this host" >&2
  exit 2
fi
g++ "${flags[@]}" scripts/fusemath/kernels.cpp -include "$header" "$mvec" -o "$tmp/new.so"
g++ "${flags[@]}" scripts/fusemath/kernels.cpp -o "$tmp/old.so"
g++ -O2 scripts/fusemath/exhaustive.cpp -ldl -o "$tmp/exhaustive"
for which in 0 1 2 3; do
  "$tmp/exhaustive" "$which" "$tmp/new.so" "$tmp/old.so"
done
if [[ "${1:-}" == "--no-fma" ]]; then
  g++ "${flags[@]}" -mno-fma scripts/fusemath/kernels.cpp -include "$header" "$mvec" -o "$tmp/nofma.so"
  if objdump -d "$tmp/nofma.so" | grep -q vfmadd; then
    echo "check-fuse-math: the -mno-fma build has FMA instructions" >&2
    exit 1
  fi
  echo "without FMA (-mno-fma):"
  for which in 0 1 2; do
    "$tmp/exhaustive" "$which" "$tmp/nofma.so" "$tmp/old.so"
  done
fi
