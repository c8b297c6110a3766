#!/usr/bin/env bash
# Installs Janus 1.1.2 + Meetecho's WHIP server + a WHEP front on janus-whep-server, for
# whipbench's real-server tests, on Debian 12 as root. Idempotent: run it again at any time.
#   - Debian packages: janus, GStreamer (the non-whipbench publisher of gst-publish.sh), gcc, curl
#   - simple-whip-server: its .deb is unpacked (not installed) into .local/, because it depends
#     on Debian's nodejs and conflicts with NodeSource Node; its npm dependencies go into
#     whip-front/node_modules (package-lock.json pinned)
#   - janus-whep-server 1.1.0 + express into whep-front/node_modules (package-lock.json pinned)
#   - loopback-ifaddrs.so, compiled from loopback-ifaddrs.c into .local/lib
# Needs: the repository's own npm ci first (the fronts run on the pinned Node 22).
# It starts nothing: start.sh does. It does not touch the distribution's janus.service either
# (on a machine with systemd apt starts it with /etc/janus; the recipe's ports differ from it).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

[[ "$(id -u)" == 0 ]] || die "run as root (apt-get)"
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
version="$(janus --version 2>&1 | head -n 1 || true)"
[[ "$version" == *"(1.1."* ]] || log "warning: the recipe was made for Janus 1.1.x, found: $version"

# simple-whip-server, unpacked
if [[ ! -f "$WHIP_SERVER_ROOT/src/server.js" ]]; then
  tmp="$(mktemp -d)"
  get() { (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "simple-whip-server=$WHIP_SERVER_DEB_VERSION"); }
  get || { apt-get update -q && get; }
  rm -rf "$LOCAL_DIR/simple-whip-server"
  mkdir -p "$LOCAL_DIR/simple-whip-server"
  dpkg-deb -x "$tmp"/simple-whip-server_*.deb "$LOCAL_DIR/simple-whip-server"
  rm -rf "$tmp"
  log "simple-whip-server $WHIP_SERVER_DEB_VERSION unpacked into $LOCAL_DIR/simple-whip-server"
fi
# CommonJS, whatever the repository's package.json says ("type": "module")
printf '{ "type": "commonjs" }\n' >"$WHIP_SERVER_ROOT/package.json"
# its config.js is a link to /etc/simple-whip-server/config.js: point it at the recipe's
ln -sfn "$JANUS_DIR/whip-front/config.js" "$WHIP_SERVER_ROOT/src/config.js"

# npm dependencies of both fronts (reinstalled only when the lock file changed)
for front in whip-front whep-front; do
  dir="$JANUS_DIR/$front"
  if [[ ! -f "$dir/node_modules/.package-lock.json" || "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]]; then
    log "npm ci in $front"
    npm ci --prefix "$dir" --no-audit --no-fund --omit=dev
  fi
done

# the getifaddrs() shim Janus runs under
if [[ ! -f "$SHIM" || "$JANUS_DIR/loopback-ifaddrs.c" -nt "$SHIM" ]]; then
  mkdir -p "$(dirname "$SHIM")"
  gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$SHIM.tmp" "$JANUS_DIR/loopback-ifaddrs.c" -ldl
  mv -f "$SHIM.tmp" "$SHIM"
  log "built $SHIM"
fi

front_node >/dev/null || true
log "installed; start the stack with $JANUS_DIR/start.sh"
