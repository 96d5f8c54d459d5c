#!/usr/bin/env bash
# bench-compare.sh A B [BENCH FLAGS...]: the regression guard (issue 25).
# Builds the bench of commits A and B (any git revisions), runs them in
# turns on this machine, ABBA order, BENCH_ROUNDS times each (default 3),
# and prints every workload's lane times B ÷ A with their spread over the
# rounds, flagging the rows whose ranges do not overlap (bench/compare).
# Every performance change quotes its output.
#
#   scripts/bench-compare.sh main HEAD -only=block,softmax -steps=false
#
# Give bench flags as -name=value: a flag that one side's bench does not
# have (an older commit's) is left out for that side, with a warning.
#
# On the GPU machine (no Go there): BENCH_COMPARE_BUILD=DIR builds
# DIR/bench-a, DIR/bench-b, DIR/compare and DIR/run.sh, to carry with the GPU
# pack (copy DIR into the pack's bin/) and start there as
# `bash bin/DIR/run.sh [BENCH FLAGS...]` from the pack's src folder.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/bench-compare.sh A B [bench flags...]" >&2
  exit 2
fi
a="$1" b="$2"
shift 2
root="$(pwd)"
dir="${BENCH_COMPARE_BUILD:-$(mktemp -d /tmp/bench-compare.XXXXXX)}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# build REV OUT: the bench of REV, in a detached worktree beside this one
# (its .deps is this checkout's: the same MLX for both sides).
build() {
  local rev="$1" out="$2" wt
  wt="$(mktemp -d /tmp/bench-compare-wt.XXXXXX)"
  git worktree add --quiet --detach "$wt" "$rev"
  ln -s "$root/.deps" "$wt/.deps"
  (cd "$wt" && go build -o "$out" ./bench)
  git worktree remove --force "$wt"
}
echo "bench-compare: building A=$a ($(git rev-parse --short "$a")) and B=$b ($(git rev-parse --short "$b"))" >&2
build "$a" "$dir/bench-a"
build "$b" "$dir/bench-b"
go build -o "$dir/compare" ./bench/compare
cat >"$dir/run.sh" <<RUN
#!/usr/bin/env bash
# Runs bench-a and bench-b in turns (ABBA), \${BENCH_ROUNDS:-3} times each,
# then compares them. Made by scripts/bench-compare.sh $a ($(git rev-parse --short "$a")) $b ($(git rev-parse --short "$b")).
# Run it from a checkout (or the GPU pack's src folder): the binaries find
# libmlx.so in ./.deps/mlx/mlx/lib (MLX_LIB overrides), bench/peers.py for
# -python there too.
set -euo pipefail
here="\$(cd "\$(dirname "\$0")" && pwd)"
export LD_LIBRARY_PATH="\${MLX_LIB:-\$PWD/.deps/mlx/mlx/lib}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
out="\${BENCH_COMPARE_OUT:-\$here/out}"
mkdir -p "\$out"
rm -f "\$out"/a.*.json "\$out"/b.*.json
rounds="\${BENCH_ROUNDS:-3}"
# flags SIDE ARGS...: the args whose flag SIDE's bench knows.
flags() {
  local side="\$1" help name
  shift
  help="\$("\$here/bench-\$side" -h 2>&1 || true)"
  for arg in "\$@"; do
    name="\${arg%%=*}"
    name="\${name#-}"
    name="\${name#-}"
    if grep -q -- "^  -\$name\( \|\$\)" <<<"\$help"; then
      printf '%s\\0' "\$arg"
    else
      echo "bench-compare: bench-\$side has no flag -\$name: left out for it" >&2
    fi
  done
}
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order="a b"; else order="b a"; fi
  for side in \$order; do
    echo "bench-compare: round \$r/\$rounds, \$side" >&2
    mapfile -d '' args < <(flags "\$side" "\$@")
    "\$here/bench-\$side" -json "\$out/\$side.\$r.json" \${args[@]+"\${args[@]}"} >"\$out/\$side.\$r.txt"
  done
done
"\$here/compare" -a "\$out/a.*.json" -b "\$out/b.*.json" -a-name "A=$a" -b-name "B=$b"
RUN
chmod +x "$dir/run.sh"
if [[ -n "${BENCH_COMPARE_BUILD:-}" ]]; then
  echo "bench-compare: built into $dir (run: bash $dir/run.sh [bench flags])" >&2
  exit 0
fi
bash "$dir/run.sh" "$@"
