#!/usr/bin/env bash
# Starts Janus, the WHIP front and the WHEP front in the background, on 127.0.0.1 only, and
# creates the endpoints. Idempotent: a component already running from this recipe (its PID
# file names a live process with the expected command line) is left as it is; the endpoints are
# (re)created when missing. PID files and logs are in run/. stop.sh stops what this started.
#   JANUS_BUFFERKF=true|false  Streaming keyframe buffer (default false; applied when Janus starts)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

[[ -f "$SHIM" && -f "$WHIP_SERVER_ROOT/src/server.js" && -d "$JANUS_DIR/whep-front/node_modules" ]] ||
  die "not installed: run $JANUS_DIR/install.sh first"
command -v janus >/dev/null || die "janus is not installed: run install.sh"
NODE="$(front_node)"
mkdir -p "$RUN_DIR"

# spawn NAME LOGFILE CMD...: start CMD in its own session, in the background, PID to run/NAME.pid
spawn() {
  local name="$1" logfile="$2"
  shift 2
  : >"$logfile"
  setsid "$@" </dev/null >>"$logfile" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
}

# refuse to start next to something else already listening where the recipe wants to
port_free() {
  local url="$1" what="$2"
  if curl -s -o /dev/null --max-time 1 "$url"; then
    die "$what: something else already answers at $url (not started by this recipe)"
  fi
}

# --- Janus ---------------------------------------------------------------------------------
if pid_alive janus "$JANUS_MARKER"; then
  log "janus already running (pid $(cat "$RUN_DIR/janus.pid"))"
else
  port_free "$JANUS_HTTP/info" "Janus"
  "$JANUS_DIR/configure.sh"
  : >"$RUN_DIR/janus.log"  # Janus appends to its own log file
  # LD_PRELOAD: Janus sees only 127.0.0.1 (see loopback-ifaddrs.c); only Janus runs under it.
  # In a namespace of its own (JANUS_ICE_IFACE a veth device) it gathers that device unaided.
  preload="$SHIM"
  [[ "$JANUS_ICE_IFACE" == lo ]] || preload=""
  spawn janus "$RUN_DIR/janus.out" env LD_PRELOAD="$preload" \
    janus -C "$RUN_DIR/conf/janus.jcfg" -F "$RUN_DIR/conf" -N
  wait_http "$JANUS_HTTP/info" 20 janus "$JANUS_MARKER" || die "Janus did not answer at $JANUS_HTTP/info (see $RUN_DIR/janus.log)"
  log "janus started (pid $(cat "$RUN_DIR/janus.pid"))"
fi

# --- WHIP front (simple-whip-server) ---------------------------------------------------------
if pid_alive whip "$WHIP_MARKER"; then
  log "WHIP front already running (pid $(cat "$RUN_DIR/whip.pid"))"
else
  port_free "$WHIP_BASE/endpoints" "WHIP front"
  (cd "$WHIP_SERVER_ROOT" && spawn whip "$RUN_DIR/whip.log" env \
    NODE_PATH="$JANUS_DIR/whip-front/node_modules" NODE_ENV=production WHIP_HOST="$FRONT_HOST" \
    DEBUG="${WHIP_DEBUG:-whip:*,-whip:debug,janus:*,-janus:debug,-janus:vdebug}" \
    "$NODE" -r "$JANUS_DIR/whip-front/bind-loopback.cjs" "$WHIP_MARKER")
  wait_http "$WHIP_BASE/endpoints" 20 whip "$WHIP_MARKER" || die "the WHIP front did not answer (see $RUN_DIR/whip.log)"
  log "WHIP front started (pid $(cat "$RUN_DIR/whip.pid"))"
fi

# --- WHEP front (janus-whep-server + whep-front.mjs) ----------------------------------------
if pid_alive whep "$WHEP_MARKER"; then
  log "WHEP front already running (pid $(cat "$RUN_DIR/whep.pid"))"
else
  port_free "$WHEP_BASE/endpoints" "WHEP front"
  (cd "$JANUS_DIR/whep-front" && spawn whep "$RUN_DIR/whep.log" env \
    JANUS_WS="$JANUS_WS" WHEP_PORT="$WHEP_PORT" WHEP_HOST="$FRONT_HOST" "$NODE" "$WHEP_MARKER")
  wait_http "$WHEP_BASE/endpoints" 20 whep "$WHEP_MARKER" || die "the WHEP front did not answer (see $RUN_DIR/whep.log)"
  log "WHEP front started (pid $(cat "$RUN_DIR/whep.pid"))"
fi

# --- endpoints -------------------------------------------------------------------------------
# post_json URL JSON: 200 = created, 400/409 "already exists" = fine, anything else fails
post_json() {
  local out code
  out="$(mktemp)"
  code="$(curl -s -o "$out" -w '%{http_code}' --max-time 5 -H 'content-type: application/json' -d "$2" "$1")"
  if [[ "$code" != 200 ]] && ! grep -q 'already exists' "$out"; then
    cat "$out" >&2
    rm -f "$out"
    die "POST $1 $2 -> HTTP $code"
  fi
  rm -f "$out"
}
# WHIP: VideoRoom room 1234, each publisher rtp_forwarded to its Streaming mountpoint
post_json "$WHIP_BASE/create" \
  '{"id":"vp8","room":1234,"label":"whipbench-vp8","secret":"adminpwd","recipient":{"host":"127.0.0.1","videoPort":15004,"videoRtcpPort":15005}}'
post_json "$WHIP_BASE/create" \
  '{"id":"h264","room":1234,"label":"whipbench-h264","secret":"adminpwd","recipient":{"host":"127.0.0.1","videoPort":15006,"videoRtcpPort":15007}}'
# WHIP vp8-sim: a simulcast publisher into room 1235, not forwarded (its viewers subscribe in the room)
post_json "$WHIP_BASE/create" '{"id":"vp8-sim","room":1235,"label":"whipbench-vp8-sim","secret":"adminpwd"}'
# WHIP h264-sim: the same for H.264 simulcast, room 1236
post_json "$WHIP_BASE/create" '{"id":"h264-sim","room":1236,"label":"whipbench-h264-sim","secret":"adminpwd"}'
# WHEP: Streaming mountpoints
post_json "$WHEP_BASE/create" '{"id":"vp8","mountpoint":1}'
post_json "$WHEP_BASE/create" '{"id":"h264","mountpoint":2}'
post_json "$WHEP_BASE/create" '{"id":"ext-vp8","mountpoint":3}'
post_json "$WHEP_BASE/create" '{"id":"ext-h264","mountpoint":4}'
# WHEP vp8-sim: VideoRoom subscribers of room 1235's publisher, one substream each (layer extension)
post_json "$WHEP_BASE/create" '{"id":"vp8-sim","plugin":"videoroom","room":1235,"layers":["l","m","h"]}'
post_json "$WHEP_BASE/create" '{"id":"h264-sim","plugin":"videoroom","room":1236,"layers":["l","m","h"]}'

cat <<MSG
janus stack up (logs and PIDs in $RUN_DIR):
  WHIP  $WHIP_BASE/endpoint/vp8      $WHIP_BASE/endpoint/h264
  WHEP  $WHEP_BASE/endpoint/vp8      $WHEP_BASE/endpoint/h264
        $WHEP_BASE/endpoint/ext-vp8  $WHEP_BASE/endpoint/ext-h264   (gst-publish.sh vp8|h264)
  simulcast (VP8, layers l,m,h): WHIP $WHIP_BASE/endpoint/vp8-sim  WHEP $WHEP_BASE/endpoint/vp8-sim
  simulcast (H.264, l,m,h):      WHIP $WHIP_BASE/endpoint/h264-sim WHEP $WHEP_BASE/endpoint/h264-sim
MSG
