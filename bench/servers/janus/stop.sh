#!/usr/bin/env bash
# Stops what start.sh started, and only that: each PID in run/*.pid whose process still has the
# expected command line gets SIGTERM, then SIGKILL after 5 s. Idempotent.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

stop_one() {
  local name="$1" marker="$2" pid
  if ! pid_alive "$name" "$marker"; then
    rm -f "$RUN_DIR/$name.pid"
    return
  fi
  pid="$(cat "$RUN_DIR/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do
    pid_alive "$name" "$marker" || break
    sleep 0.1
  done
  if pid_alive "$name" "$marker"; then
    log "$name (pid $pid) ignored SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN_DIR/$name.pid"
  log "stopped $name (pid $pid)"
}

# the fronts first, so they do not log Janus going away
stop_one whep "$WHEP_MARKER"
stop_one whip "$WHIP_MARKER"
stop_one janus "$JANUS_MARKER"
