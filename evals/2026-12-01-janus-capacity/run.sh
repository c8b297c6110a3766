#!/usr/bin/env bash
# The capacity search against Janus 1.1.2 on loopback (bench/servers/janus), with Janus' own CPU
# and RSS beside every step (--server-pid). Usage: bash evals/2026-12-01-janus-capacity/run.sh [--workers N]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=evals/2026-12-01-janus-capacity
bash bench/servers/janus/start.sh
trap 'bash bench/servers/janus/stop.sh' EXIT
pid=$(cat bench/servers/janus/run/janus.pid)
rc=0
npx whipbench capacity "$here/scenario.json" --out "$here/reports" --server-pid "$pid" "$@" || rc=$?
echo "whipbench capacity exited $rc"
