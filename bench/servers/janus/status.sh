#!/usr/bin/env bash
# Says which of the recipe's processes run (from run/*.pid) and whether their HTTP ends answer.
# Exit 0 when all three run and answer, 3 otherwise.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

rc=0
check() {
  local name="$1" marker="$2" url="$3"
  if pid_alive "$name" "$marker" && http_ok "$url"; then
    printf '%-6s running (pid %s), %s answers\n' "$name" "$(cat "$RUN_DIR/$name.pid")" "$url"
  else
    printf '%-6s not running\n' "$name"
    rc=3
  fi
}
check janus "$JANUS_MARKER" "$JANUS_HTTP/info"
check whip "$WHIP_MARKER" "$WHIP_BASE/endpoints"
check whep "$WHEP_MARKER" "$WHEP_BASE/endpoints"
if [[ -f "$RUN_DIR/conf/janus.plugin.streaming.jcfg" ]]; then
  grep -m1 -o 'videobufferkf = [a-z]*' "$RUN_DIR/conf/janus.plugin.streaming.jcfg" | sed 's/^/janus  /'
fi
exit "$rc"
