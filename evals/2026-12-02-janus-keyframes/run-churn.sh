#!/usr/bin/env bash
# A churn run against Janus 1.1.2 (bench/servers/janus) as a one-step capacity search, so that the
# capacity command's server watch (--server-pid) gives Janus' CPU and RSS over the step; beside
# it, every 10 s, Janus' RSS, open descriptors and threads from /proc (reports/janus-proc.tsv).
# Usage: bash evals/2026-12-02-janus-keyframes/run-churn.sh [--workers N]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=evals/2026-12-02-janus-keyframes
bash bench/servers/janus/status.sh >/dev/null || bash bench/servers/janus/start.sh
pid=$(cat bench/servers/janus/run/janus.pid)
mkdir -p "$here/reports"
tsv="$here/reports/janus-proc.tsv"
sample() {
  local began=$SECONDS
  printf 't_s\trss_kib\tfds\tthreads\n'
  while [ -d "/proc/$pid" ]; do
    printf '%s\t%s\t%s\t%s\n' "$((SECONDS - began))" \
      "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")" \
      "$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)" \
      "$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")"
    sleep 10
  done
}
sample >"$tsv" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT
rc=0
node_modules/.bin/node bin/whipbench.js capacity "$here/scenario-churn.json" --out "$here/reports" --server-pid "$pid" "$@" || rc=$?
sleep 10
echo "whipbench capacity exited $rc"
