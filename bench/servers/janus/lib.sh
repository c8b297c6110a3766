# Shared by install.sh, configure.sh, start.sh, stop.sh and status.sh: paths, ports, helpers.
# Sourced, never run. Every address here is on 127.0.0.1.
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

JANUS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$JANUS_DIR/../../.." && pwd -P)"
# what install.sh builds and unpacks (gitignored); JANUS_LOCAL_DIR puts it elsewhere (the tests
# point it at an empty folder to see the recipe as a checkout without it)
LOCAL_DIR="${JANUS_LOCAL_DIR:-$JANUS_DIR/.local}"
RUN_DIR="${JANUS_RUN_DIR:-$JANUS_DIR/run}"  # rendered configuration, logs and PID files (gitignored)
# Where Janus gathers and the fronts listen. The defaults are 127.0.0.1 (through the loopback
# shim); a test's own network namespace sets JANUS_IP to its veth address and JANUS_ICE_IFACE to
# the veth device, and the fronts then listen on every address of that namespace (0.0.0.0).
JANUS_IP="${JANUS_IP:-127.0.0.1}"
JANUS_ICE_IFACE="${JANUS_ICE_IFACE:-lo}"
if [[ "$JANUS_ICE_IFACE" == lo ]]; then FRONT_HOST=127.0.0.1; else FRONT_HOST=0.0.0.0; fi

SHIM="$LOCAL_DIR/lib/loopback-ifaddrs.so"
WHIP_SERVER_DEB_VERSION="0.0~git20230201-1"
WHIP_SERVER_ROOT="$LOCAL_DIR/simple-whip-server/usr/share/simple-whip-server"

JANUS_HTTP="http://127.0.0.1:18088/janus"
JANUS_WS="ws://127.0.0.1:18188"
WHIP_PORT=7080
WHEP_PORT=7090
WHIP_BASE="http://127.0.0.1:$WHIP_PORT/whip"
WHEP_BASE="http://127.0.0.1:$WHEP_PORT/whep"

APT_PACKAGES=(janus gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-ugly gcc libc6-dev curl ca-certificates)

log() { printf 'janus-recipe: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The Node that runs the two fronts: the project's pinned Node 22 (npm ci at the repository root).
front_node() {
  local pinned="$REPO_ROOT/node_modules/node/bin/node"
  if [[ -x "$pinned" ]]; then printf '%s\n' "$pinned"; return; fi
  die "the pinned Node is missing ($pinned): run npm ci at the repository root first"
}

# The folder holding Janus' plugins/, transports/, events/ and loggers/ (multiarch path).
janus_lib() {
  local so=""
  for so in /usr/lib/*/janus/plugins/libjanus_videoroom.so; do [[ -e "$so" ]] && break; done
  [[ -e "$so" ]] || die "Janus is not installed (no libjanus_videoroom.so): run install.sh"
  dirname "$(dirname "$(readlink -f "$so")")"
}

# pid_alive NAME MARKER: the PID in run/NAME.pid is alive and its command line contains MARKER
# (so a PID the kernel has since given to another process is never taken for ours).
pid_alive() {
  local file="$RUN_DIR/$1.pid" pid
  [[ -f "$file" ]] || return 1
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$2"
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }

# wait_http URL SECONDS [NAME MARKER]: poll until URL answers 2xx; fail at once if the
# process of run/NAME.pid has died.
wait_http() {
  local url="$1" deadline=$((SECONDS + $2))
  until http_ok "$url"; do
    ((SECONDS < deadline)) || return 1
    if [[ $# -ge 4 ]] && ! pid_alive "$3" "$4"; then return 1; fi
    sleep 0.2
  done
}

# The markers pid_alive checks for each component.
JANUS_MARKER="$RUN_DIR/conf/janus.jcfg"
WHIP_MARKER="src/server.js"
WHEP_MARKER="whep-front.mjs"
