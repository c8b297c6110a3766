#!/usr/bin/env bash
# The load-test gate of the GitHub Actions example (docs/ci/github-actions.yml runs this file, and
# test/e2e/ci-example.test.ts runs the same file): start a server, run a scenario with thresholds,
# leave the reports, JUnit XML and a job summary in $OUT, and exit with whipbench's code
# (0 pass, 99 a threshold failed, 3 no verdict, 1 error, 2 usage).
#
#   WHIPBENCH  how to call whipbench (default: node bin/whipbench.js, from a checkout after npm ci)
#   OUT        report directory (default: reports)
#   PORT       the server's port on 127.0.0.1 (default: 8889)
#   SCENARIO   scenario file whose URLs use 127.0.0.1:8889 (default: docs/ci/scenario.json)
set -euo pipefail

WHIPBENCH="${WHIPBENCH:-node bin/whipbench.js}"
OUT="${OUT:-reports}"
PORT="${PORT:-8889}"
SCENARIO="${SCENARIO:-docs/ci/scenario.json}"
mkdir -p "$OUT"

# 1. The server under test. Here the built-in relay; put your server's start command instead
#    (e.g. `docker run -d --network host <image>`), and its URLs in the scenario.
$WHIPBENCH relay --listen "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.2
done

# 2. The scenario, pointed at that port.
sed "s#127\.0\.0\.1:8889#127.0.0.1:$PORT#g" "$SCENARIO" >"$OUT/scenario.json"

# 3. The run: thresholds decide the exit code; JUnit for the test report, Markdown for the job summary.
code=0
$WHIPBENCH run "$OUT/scenario.json" --out "$OUT" --quiet \
  --junit "$OUT/junit.xml" --summary-md "$OUT/summary.md" || code=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$OUT/summary.md" ]; then
  cat "$OUT/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$code"
