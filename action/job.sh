#!/usr/bin/env bash
# The job step of action.yml: runs linkctl for LINKCTL_JOB with the action's inputs (passed in the
# environment by action.yml, so no input is ever pasted into a script). Writes the step's outputs
# (changes, plan, report) to GITHUB_OUTPUT and the plan to the job summary.
set -eo pipefail

prune=()
if [ "$LINKCTL_PRUNE" = true ]; then prune=(--prune); fi
# `args`: one argument a line, taken as they are (no word splitting, no globbing).
extra=()
while IFS= read -r line; do
  if [ -n "$line" ]; then extra+=("$line"); fi
done <<< "$LINKCTL_ARGS"
# A history restored from the artifact (action.yml's "Restore the history"); otherwise LINKCTL_DB
# as the workflow set it (a PostgreSQL URL from a secret), or none.
if [ -n "$LINKCTL_HISTORY_DB" ]; then export LINKCTL_DB="$LINKCTL_HISTORY_DB"; fi

# linkctl prints what the server sent (names, titles, URLs). A line of it that looked like a
# workflow command (`::add-mask::`, `::error::`) would be obeyed by the runner: commands are off
# while linkctl runs, under a token nobody else knows.
stop_commands() { token=$(node -p "require('node:crypto').randomUUID()"); echo "::stop-commands::$token"; }
resume_commands() { echo "::$token::"; }

# A step output in GitHub's delimiter form (name<<DELIMITER, the value, DELIMITER), under a
# delimiter nobody can guess: a value holding a line break (a `report` input) stays one value and
# cannot add outputs of its own.
set_output() {
  local delimiter
  delimiter="linkctl_$(node -p "require('node:crypto').randomUUID()")"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >> "$GITHUB_OUTPUT"
}

case "$LINKCTL_JOB" in
  plan | drift)
    plan="$RUNNER_TEMP/linkctl-plan.md"
    status=0
    stop_commands
    if [ "$LINKCTL_JOB" = plan ]; then
      # --detailed-exitcode: 0 nothing to change, 2 changes pending (both fine here), 1 the plan failed.
      linkctl plan -f "$LINKCTL_FILE" "${prune[@]}" "${extra[@]}" -o markdown --detailed-exitcode > "$plan" || status=$?
      cat "$plan"
    else
      linkctl plan -f "$LINKCTL_FILE" "${prune[@]}" "${extra[@]}" --detailed-exitcode || status=$?
    fi
    resume_commands
    if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then exit "$status"; fi
    if [ "$status" -eq 2 ]; then set_output changes true; else set_output changes false; fi
    if [ "$LINKCTL_JOB" = plan ]; then
      set_output plan "$plan"
      if [ -n "$GITHUB_STEP_SUMMARY" ]; then cat "$plan" >> "$GITHUB_STEP_SUMMARY"; fi
    elif [ "$status" -eq 2 ]; then
      echo "::error title=linkctl drift::the account no longer matches $LINKCTL_FILE: it was changed outside the file (the plan above says how)"
      exit 2
    fi
    ;;
  apply)
    limit=()
    if [ -n "$LINKCTL_MAX_DELETES" ]; then limit=(--max-deletes "$LINKCTL_MAX_DELETES"); fi
    stop_commands
    status=0
    linkctl apply -f "$LINKCTL_FILE" "${prune[@]}" --yes "${limit[@]}" "${extra[@]}" || status=$?
    resume_commands
    exit "$status"
    ;;
  snapshot)
    stop_commands
    status=0
    linkctl stats snapshot "${extra[@]}" || status=$?
    resume_commands
    exit "$status"
    ;;
  check)
    failOn=()
    if [ -n "$LINKCTL_FAIL_ON" ]; then failOn=(--fail-on "$LINKCTL_FAIL_ON"); fi
    set_output report "$LINKCTL_REPORT"
    stop_commands
    status=0
    linkctl check "${failOn[@]}" "${extra[@]}" --json > "$LINKCTL_REPORT" || status=$?
    resume_commands
    exit "$status"
    ;;
  *)
    # action/github.mjs `inputs` refused it already; this is the last guard.
    echo "::error::job must be one of plan, apply, drift, snapshot, check (or empty), not \"$LINKCTL_JOB\""
    exit 2
    ;;
esac
