#!/usr/bin/env bash
# The steps of the whipbench GitHub Action (action.yml at the repository root calls this file, and
# test/e2e/action.test.ts runs the same file as a workflow would): `install`, `run`, `finish`.
# Inputs come as INPUT_* variables (action.yml maps each input to one); outputs go to
# $GITHUB_OUTPUT, the job summary to $GITHUB_STEP_SUMMARY, as GitHub Actions provides them.
#
#   install  INPUT_VERSION   "checkout" (default): whipbench from the action's own checkout (npm ci
#                            there, skipped when already done); else an npm spec or tarball that
#                            `npm install --global` takes (0.1.0, ./whipbench-0.1.0.tgz)
#            output: whipbench (the command the run step calls)
#   run      WHIPBENCH       the command `install` gave
#            INPUT_SCENARIO  scenario JSON file with thresholds (required)
#            INPUT_OUT       report directory (default whipbench-reports)
#            INPUT_RELAY_PORT  when set, the built-in relay is started on 127.0.0.1:PORT for the run
#                            (and stopped after it): the scenario's URLs must name that port
#            INPUT_ARGS      more `whipbench run` flags, split on blanks (e.g. "--workers 2")
#            outputs: exit-code (whipbench run's: 0 pass, 99 a threshold failed, 3 no verdict,
#            1 error, 2 usage), verdict (its first stdout line), report (the report JSON), junit
#            The step itself exits 0 so the reports are uploaded before `finish` fails the job.
#   finish   INPUT_EXIT_CODE the run step's exit-code: the job fails with it (99 on a failed
#            threshold), saying so in one annotation
set -euo pipefail

ACTION_PATH="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd -P)}"

output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi; }

install() {
  local version="${INPUT_VERSION:-checkout}"
  if [ "$version" = "checkout" ]; then
    if [ -x "$ACTION_PATH/node_modules/node/bin/node" ]; then
      echo "whipbench: the action's checkout is already installed"
    else
      (cd "$ACTION_PATH" && npm ci --no-audit --no-fund)
    fi
    output whipbench "node $ACTION_PATH/bin/whipbench.js"
  else
    npm install --global --no-audit --no-fund "whipbench@$version"
    output whipbench "whipbench"
  fi
}

# the built-in relay on 127.0.0.1:$1, its PID in RELAY; waits (bounded) until the port accepts
start_relay() {
  local port="$1" i
  [[ "$port" =~ ^[0-9]+$ ]] || { echo "::error::relay-port: want a port number"; exit 2; }
  # shellcheck disable=SC2086 # WHIPBENCH is a command with its arguments
  $WHIPBENCH relay --listen "127.0.0.1:$port" >"$OUT/relay.log" 2>&1 &
  RELAY=$!
  trap 'kill "$RELAY" 2>/dev/null || true' EXIT
  for i in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return; fi
    kill -0 "$RELAY" 2>/dev/null || break
    sleep 0.2
  done
  echo "::error::the built-in relay did not listen on 127.0.0.1:$port (after $i tries; see $OUT/relay.log)"
  exit 1
}

run() {
  : "${WHIPBENCH:?set it to the whipbench output of the install step}"
  local scenario="${INPUT_SCENARIO:-}"
  if [ -z "$scenario" ]; then
    echo "::error::scenario: the input is required (a scenario JSON file with thresholds)"
    output exit-code 2
    return 0
  fi
  OUT="${INPUT_OUT:-whipbench-reports}"
  mkdir -p "$OUT"
  if [ -n "${INPUT_RELAY_PORT:-}" ]; then start_relay "$INPUT_RELAY_PORT"; fi
  local args=()
  read -r -a args <<<"${INPUT_ARGS:-}"
  local code=0
  # shellcheck disable=SC2086 # WHIPBENCH is a command with its arguments
  $WHIPBENCH run "$scenario" --out "$OUT" --quiet --junit "$OUT/junit.xml" \
    --summary-md "$OUT/summary.md" "${args[@]}" >"$OUT/stdout.txt" || code=$?
  cat "$OUT/stdout.txt"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$OUT/summary.md" ]; then
    cat "$OUT/summary.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  output exit-code "$code"
  output verdict "$(head -n 1 "$OUT/stdout.txt")"
  local report
  report="$(sed -n 's/^wrote \(.*\.json\)$/\1/p' "$OUT/stdout.txt" | head -n 1)"
  output report "$report"
  if [ -f "$OUT/junit.xml" ]; then output junit "$OUT/junit.xml"; fi
  return 0
}

finish() {
  local code="${INPUT_EXIT_CODE:-}"
  case "$code" in
    0) return 0 ;;
    99) echo "::error::whipbench: a threshold failed (exit 99); the reports are in the artifact" ;;
    3) echo "::error::whipbench: the run has no verdict (exit 3)" ;;
    '') echo "::error::whipbench: the run step gave no exit code"; code=1 ;;
    *) echo "::error::whipbench: the run failed (exit $code)" ;;
  esac
  exit "$code"
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  finish) finish ;;
  *) echo "usage: $0 install|run|finish" >&2; exit 2 ;;
esac
