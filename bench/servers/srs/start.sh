#!/usr/bin/env bash
# Runs SRS 6 in the foreground with this recipe's whipbench.conf (README.md): an SRS binary you
# built yourself when SRS_BIN names it (its objs/srs, run from its trunk directory), else the
# container image ossrs/srs:6 with both ports published on 127.0.0.1 only. Ctrl-C (or a matrix's
# SIGTERM to the process group) stops it. Nothing here builds SRS.
#   SRS_BIN=/path/to/srs/trunk/objs/srs   run this binary instead of the container
#   SRS_IMAGE=ossrs/srs:6                 the container image (default)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
conf="$here/whipbench.conf"

if [[ -n "${SRS_BIN:-}" ]]; then
  [[ -x "$SRS_BIN" ]] || { echo "start.sh: SRS_BIN=$SRS_BIN is not an executable" >&2; exit 1; }
  # SRS writes its PID file under ./objs: run it from its trunk directory
  cd "$(dirname "$SRS_BIN")/.."
  exec "$SRS_BIN" -c "$conf"
fi

engine="$(command -v docker || command -v podman || true)"
[[ -n "$engine" ]] || { echo "start.sh: neither docker nor podman is installed (or set SRS_BIN)" >&2; exit 1; }
# inside the container the API must listen on the container's interface; the published port is
# bound to the host's 127.0.0.1 only
exec "$engine" run --rm --name whipbench-srs \
  -e SRS_HTTP_API_LISTEN=1985 \
  -p 127.0.0.1:1985:1985 -p 127.0.0.1:8000:8000/udp \
  -v "$conf:/usr/local/srs/conf/whipbench.conf:ro" \
  "${SRS_IMAGE:-ossrs/srs:6}" ./objs/srs -c conf/whipbench.conf
