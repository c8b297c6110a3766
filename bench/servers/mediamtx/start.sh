#!/usr/bin/env bash
# Runs MediaMTX in the foreground with this recipe's mediamtx.yml (README.md): the binary
# MEDIAMTX_BIN names (built from MediaMTX's repository, or a release's), WebRTC only, on 127.0.0.1
# only. Ctrl-C (or a matrix's SIGTERM to the process group) stops it. Nothing here builds or
# downloads MediaMTX.
#   MEDIAMTX_BIN=/path/to/mediamtx   the binary to run (required)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
conf="$here/mediamtx.yml"

if [[ -z "${MEDIAMTX_BIN:-}" ]]; then
  echo "mediamtx-recipe: error: MEDIAMTX_BIN is not set: set it to a MediaMTX binary (built from its repository or a release's; see $here/README.md)" >&2
  exit 1
fi
if [[ ! -f "$MEDIAMTX_BIN" || ! -x "$MEDIAMTX_BIN" ]]; then
  echo "mediamtx-recipe: error: MEDIAMTX_BIN is not an executable file: $MEDIAMTX_BIN" >&2
  exit 1
fi
exec "$MEDIAMTX_BIN" "$conf"
