#!/usr/bin/env bash
# Installs the agents' own CLIs that tests/agent_clis runs for real (pinned versions, from npm)
# into .cache/agent-clis (gitignored). Does nothing when they are there already.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.cache/agent-clis
want="@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33 @github/copilot@1.0.102"
if [ -f "$dir/installed.txt" ] && [ "$(cat "$dir/installed.txt")" = "$want" ] \
  && [ -x "$dir/node_modules/.bin/claude" ] && [ -x "$dir/node_modules/.bin/codex" ] \
  && [ -x "$dir/node_modules/.bin/gemini" ] && [ -x "$dir/node_modules/.bin/opencode" ] \
  && [ -x "$dir/node_modules/.bin/copilot" ]; then
  exit 0
fi
mkdir -p "$dir"
# shellcheck disable=SC2086
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $want
echo "$want" > "$dir/installed.txt"
