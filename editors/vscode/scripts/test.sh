#!/usr/bin/env bash
# Every check of the VS Code extension, in one idempotent command: install the locked
# dependencies, typecheck, lint, build, unit tests, package the .vsix, install code-server
# when missing, and the end-to-end test in a real VS Code against the real server.
# Exits non-zero on the first failure. The plansight CLI comes from $PLANSIGHT_BIN, else
# <repo>/.venv/bin/plansight.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$HERE"

export PLANSIGHT_BIN="${PLANSIGHT_BIN:-$REPO/.venv/bin/plansight}"
if [[ ! -x "$PLANSIGHT_BIN" ]]; then
  echo "The plansight CLI was not found at $PLANSIGHT_BIN: install the server (pip install -e .) or set PLANSIGHT_BIN." >&2
  exit 1
fi

started=$SECONDS
step() {
  local name="$1"
  shift
  local t0=$SECONDS
  printf '\n== %s\n' "$name"
  "$@"
  printf -- '-- %s: ok (%ss)\n' "$name" "$((SECONDS - t0))"
}

# The end-to-end test runs the CLI (and code-server) in a home of its own, HOME, XDG
# folders and XDG_RUNTIME_DIR (test/e2e/run.ts: isolatedEnv), and stops the warm hook
# process its CLI calls start when it ends.

step "npm ci" npm ci --no-audit --no-fund --loglevel=error
step "typecheck" npm run -s typecheck
step "lint" npm run -s lint
step "build" npm run -s build
step "unit tests" npm run -s test:unit
step "vsce package" npm run -s package
step "code-server" scripts/install-code-server.sh
step "end to end" npm run -s test:e2e

printf '\nAll VS Code extension checks passed in %ss.\n' "$((SECONDS - started))"
