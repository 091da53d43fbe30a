# Sourced by .ci/run and .ci/test: run each stage of the checks whatever became of the
# ones before (a failing Python test must not hide what the Neovim and VS Code stages
# would say), then one summary line per stage, and a failure at the end if any failed.
#
#   stage "Name" command args...   # runs it, records passed/failed and its seconds
#   stages_summary                 # prints the summary; returns 1 when a stage failed
#
# The results go to $PLANSIGHT_CI_STAGES (a file), so .ci/run's own stages and those of the
# .ci/test it runs share one summary.

if [[ -z "${PLANSIGHT_CI_STAGES:-}" ]]; then
  PLANSIGHT_CI_STAGES="$(mktemp "${TMPDIR:-/tmp}/plansight-ci-stages.XXXXXX")"
  export PLANSIGHT_CI_STAGES
  PLANSIGHT_CI_STARTED=$(date +%s)  # .ci/test runs in a shell of its own: not $SECONDS
  export PLANSIGHT_CI_STARTED
fi

stage() {
  local name="$1"
  shift
  local t0=$SECONDS outcome=passed
  printf '\n\033[1m== %s\033[0m\n' "$name"
  # In a subshell with -e: a stage stops at its own first failure, never the run. Not in
  # an `if`: bash ignores -e inside a condition, so a stage would run on past a failure.
  (set -euo pipefail; "$@")
  (($? == 0)) || outcome=failed
  printf '%s\t%s\t%s\n' "$outcome" "$((SECONDS - t0))" "$name" >>"$PLANSIGHT_CI_STAGES"
  printf -- '-- %s: %s (%ss)\n' "$name" "$outcome" "$((SECONDS - t0))"
}

stages_summary() {
  local failed=0 outcome seconds name
  printf '\n\033[1m== Summary\033[0m\n'
  while IFS=$'\t' read -r outcome seconds name; do
    printf '%-7s %5ss  %s\n' "$outcome" "$seconds" "$name"
    [[ "$outcome" == passed ]] || failed=1
  done <"$PLANSIGHT_CI_STAGES"
  rm -f "$PLANSIGHT_CI_STAGES"
  local total=$(($(date +%s) - PLANSIGHT_CI_STARTED))
  if ((failed)); then
    printf 'FAILED after %ss\n' "$total"
    return 1
  fi
  printf 'All stages passed in %ss\n' "$total"
}
