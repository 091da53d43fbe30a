#!/usr/bin/env bash
# The Neovim render benchmark on an older commit's plugin and on this tree's, side by side
# in one run: rounds alternate between the two, so a machine's load weighs on both alike.
#
#   bench/nvim_render_compare.sh [REV] [ROUNDS]   # REV defaults to HEAD, ROUNDS to 3
#
# Prints each figure's median over the rounds (each round's figure is itself a median).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rev="${1:-HEAD}"
rounds="${2:-3}"
nvim_bin="${NVIM_BIN:-$repo/.venv/bin/nvim}"
work="$(mktemp -d "${TMPDIR:-/tmp}/plansight-nvim-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/home"
git -C "$repo" archive "$rev" editors/nvim | tar -x -C "$work/old"

run() { # $1: plugin folder, or "" for this tree's
  (cd "$work/home" && env HOME="$work/home" XDG_CONFIG_HOME="$work/home/c" XDG_DATA_HOME="$work/home/d" \
    XDG_STATE_HOME="$work/home/s" XDG_CACHE_HOME="$work/home/k" PLANSIGHT_NVIM_PLUGIN="$1" \
    "$nvim_bin" --headless --clean -l "$here/nvim_render.lua")
}
for ((i = 1; i <= rounds; i++)); do
  run "$work/old/editors/nvim" | sed 's/^/old /' >>"$work/out"
  run "" | sed 's/^/new /' >>"$work/out"
done
python3 - "$work/out" "$rev" <<'PY'
import re, statistics, sys
figures = {}
for line in open(sys.argv[1], encoding="utf-8"):
    side, text = line.split(" ", 1)
    m = re.match(r"\s+(.+?):\s+median ([\d.]+) ms", text)
    if m:
        figures.setdefault(m.group(1), {}).setdefault(side, []).append(float(m.group(2)))
print(f"nvim render, medians over the rounds (ms): {sys.argv[2]} vs this tree")
for name, sides in figures.items():
    old, new = statistics.median(sides["old"]), statistics.median(sides["new"])
    print(f"  {name:<34} {old:7.2f}  ->  {new:7.2f}")
PY
