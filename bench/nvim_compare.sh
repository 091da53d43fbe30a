#!/usr/bin/env bash
# A Neovim benchmark on an older commit's plugin and on this tree's, side by side in one
# run: rounds alternate between the two, so a machine's load weighs on both alike.
#   render: bench/nvim_render.lua (the view of 500 tasks, no server);
#   live:   bench/nvim_live.lua (a live update on 1,000 tasks, the real server: this
#           tree's for both, so an older plugin that does not ask for change deltas gets
#           whole states, as it did).
#
#   bench/nvim_compare.sh render|live [REV] [ROUNDS]   # REV defaults to HEAD, ROUNDS to 3
#
# Prints each figure's median over the rounds (each round's figure is itself a median).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench="${1:?usage: bench/nvim_compare.sh render|live [REV] [ROUNDS]}"
case "$bench" in render | live) ;; *) echo "bench/nvim_compare.sh: render or live, not $bench" >&2 && exit 2 ;; esac
rev="${2:-HEAD}"
rounds="${3:-3}"
nvim_bin="${NVIM_BIN:-$repo/.venv/bin/nvim}"
work="$(mktemp -d "${TMPDIR:-/tmp}/plansight-nvim-$bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old"
git -C "$repo" archive "$rev" editors/nvim | tar -x -C "$work/old"

run() { # $1: plugin folder, or "" for this tree's; $2: a fresh home
  mkdir -p -m 700 "$2/run"
  (cd "$2" && env HOME="$2" XDG_CONFIG_HOME="$2/c" XDG_DATA_HOME="$2/d" XDG_STATE_HOME="$2/s" \
    XDG_CACHE_HOME="$2/k" XDG_RUNTIME_DIR="$2/run" PLANSIGHT_NVIM_PLUGIN="$1" \
    PLANSIGHT_BIN="${PLANSIGHT_BIN:-$repo/.venv/bin/plansight}" \
    "$nvim_bin" --headless --clean -l "$here/nvim_$bench.lua")
}
for ((i = 1; i <= rounds; i++)); do
  run "$work/old/editors/nvim" "$work/home-old-$i" | sed 's/^/old /' >>"$work/out"
  run "" "$work/home-new-$i" | sed 's/^/new /' >>"$work/out"
done
python3 - "$work/out" "$rev" "$bench" <<'PY'
import re, statistics, sys
figures = {}
for line in open(sys.argv[1], encoding="utf-8"):
    side, text = line.split(" ", 1)
    m = re.match(r"\s+(.+?):\s+median ([\d.]+) ms", text)
    if m:
        figures.setdefault(m.group(1), {}).setdefault(side, []).append(float(m.group(2)))
print(f"nvim {sys.argv[3]}, medians over the rounds (ms): {sys.argv[2]} vs this tree")
for name, sides in figures.items():
    old = f"{statistics.median(sides['old']):7.2f}" if "old" in sides else "      -"
    new = f"{statistics.median(sides['new']):7.2f}" if "new" in sides else "      -"
    print(f"  {name:<34} {old}  ->  {new}")
PY
