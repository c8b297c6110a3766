#!/usr/bin/env bash
# A publisher that is not whipbench: GStreamer's test source, encoded live, sent as plain RTP to
# the external Streaming mountpoint (VP8 -> 127.0.0.1:15008 = WHEP endpoint ext-vp8, H.264 ->
# 127.0.0.1:15010 = ext-h264). 640x360 at 30 fps, a keyframe every 30 frames (1 s).
#   gst-publish.sh vp8|h264 [SECONDS]   runs in the foreground (exec: its PID is gst-launch's)
# Watch it with e.g.:
#   npx whipbench view --whep http://127.0.0.1:7090/whep/endpoint/ext-vp8 -n 3 --duration 10s --loopback-only
set -euo pipefail
codec="${1:-vp8}"
seconds="${2:-0}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 vp8|h264 [SECONDS]" >&2; exit 2; }
buffers=()
((seconds > 0)) && buffers=(num-buffers=$((seconds * 30)))
src=(videotestsrc is-live=true pattern=ball "${buffers[@]}" ! "video/x-raw,width=640,height=360,framerate=30/1")
case "$codec" in
  vp8)
    exec gst-launch-1.0 -q "${src[@]}" \
      ! vp8enc deadline=1 keyframe-max-dist=30 target-bitrate=1000000 error-resilient=partitions \
      ! rtpvp8pay pt=96 mtu=1200 picture-id-mode=15-bit \
      ! udpsink host=127.0.0.1 port=15008 sync=false async=false
    ;;
  h264)
    exec gst-launch-1.0 -q "${src[@]}" \
      ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bitrate=1000 \
      ! "video/x-h264,profile=constrained-baseline" \
      ! rtph264pay pt=126 mtu=1200 config-interval=-1 aggregate-mode=zero-latency \
      ! udpsink host=127.0.0.1 port=15010 sync=false async=false
    ;;
  *)
    echo "usage: $0 vp8|h264 [SECONDS]" >&2
    exit 2
    ;;
esac
