#!/usr/bin/env bash
# Live-update benchmark of the Neovim sidebar against the real server (1,000 tasks); prints
# the redraw of what changed beside the whole redraw, in one run.
# Neovim: $NVIM_BIN, else .venv/bin/nvim; server: $PLANSIGHT_BIN, else .venv/bin/plansight.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/plansight-nvim-live.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p -m 700 "$work/run"
cd "$work"
env HOME="$work" XDG_CONFIG_HOME="$work" XDG_DATA_HOME="$work" XDG_STATE_HOME="$work" \
  XDG_CACHE_HOME="$work" XDG_RUNTIME_DIR="$work/run" \
  PLANSIGHT_BIN="${PLANSIGHT_BIN:-$repo/.venv/bin/plansight}" \
  "${NVIM_BIN:-$repo/.venv/bin/nvim}" --headless --clean -l "$repo/bench/nvim_live.lua"
