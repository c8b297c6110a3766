#!/usr/bin/env bash
# Renders conf/*.jcfg into run/conf/ (Janus library folder, run folder, keyframe buffer).
#   JANUS_BUFFERKF=true|false  Streaming mountpoints' videobufferkf (default false)
# Idempotent; start.sh calls it before it starts Janus.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

bufferkf="${JANUS_BUFFERKF:-false}"
[[ "$bufferkf" == true || "$bufferkf" == false ]] || die "JANUS_BUFFERKF must be true or false"
lib="$(janus_lib)"
mkdir -p "$RUN_DIR/conf"
for src in "$JANUS_DIR"/conf/*.jcfg; do
  sed -e "s|@JANUS_LIB@|$lib|g" -e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@BUFFERKF@|$bufferkf|g" \
    -e "s|@JANUS_IP@|$JANUS_IP|g" -e "s|@ICE_IFACE@|$JANUS_ICE_IFACE|g" \
    "$src" >"$RUN_DIR/conf/$(basename "$src").tmp"
  mv -f "$RUN_DIR/conf/$(basename "$src").tmp" "$RUN_DIR/conf/$(basename "$src")"
done
log "configuration in $RUN_DIR/conf (videobufferkf=$bufferkf, interface $JANUS_IP, ICE on $JANUS_ICE_IFACE)"
