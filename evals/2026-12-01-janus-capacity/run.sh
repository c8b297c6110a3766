#!/usr/bin/env bash
# The capacity search against Janus 1.1.2 on loopback (bench/servers/janus), with Janus' own CPU
# and RSS beside every step (--server-pid). Usage: [SCENARIO=file] bash evals/2026-12-01-janus-capacity/run.sh [--workers N]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=evals/2026-12-01-janus-capacity
bash bench/servers/janus/start.sh
trap 'bash bench/servers/janus/stop.sh' EXIT
pid=$(cat bench/servers/janus/run/janus.pid)
rc=0
node_modules/.bin/node bin/whipbench.js capacity "${SCENARIO:-$here/scenario.json}" --out "$here/reports" --server-pid "$pid" "$@" || rc=$?
echo "whipbench capacity exited $rc"
