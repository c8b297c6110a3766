#!/bin/sh
# Remakes the three embedded clips (spec §11) that whipbench publishes:
#
#   clips/clip-vp8.ivf     VP8 in IVF (FourCC VP80, time base 1/30 -> 3000 ticks per frame)
#   clips/clip-h264.h264   H.264 Annex-B elementary stream, 4-byte start codes
#   clips/clip-opus.ogg    Opus in Ogg (RFC 7845), the audio track of a run with "audio": true
#
#   source   ffmpeg lavfi testsrc2 (a moving pattern with a frame counter: every frame is
#            distinct), 640x360, 30 fps, 120 frames (4 s), no audio
#   GOP      fixed 30 frames: keyframes at 0, 30, 60, 90, no scene-cut keyframes, so the
#            loop closes on a keyframe boundary
#   VP8      libvpx 600 kbit/s (b = minrate = maxrate), realtime, cpu-used 8,
#            error-resilient, auto-alt-ref 0, lag-in-frames 0
#   H.264    libx264 constrained baseline, level 3.1 (profile-level-id 42e01f), veryfast,
#            zerolatency, 600k, one slice per frame, no B-frames, SPS/PPS repeated before
#            every IDR, VUI timing for 30 fps (num_units_in_tick 1, time_scale 60)
#   Opus     lavfi aevalsrc: a rising chirp (200 Hz + 900 Hz/s) under seeded noise
#            (random(0), the same sequence on every run), 48 kHz mono, 4 s (201 packets: the
#            encoder's 312-sample pre-skip adds one); libopus 32 kbit/s CBR, 20 ms frames,
#            application audio; Ogg with a fixed stream serial (bitexact). The chirp's frequency never repeats and
#            the noise never repeats, so no two 20 ms packets are byte-equal
#            (test/unit/ogg-opus.test.ts checks it over the whole clip): each packet is its own
#            fingerprint (docs/definitions.md#audio-track). Opus 1.3.1 (Debian 12's libopus0).
#
# The clips are committed: nobody needs ffmpeg to build, test or run whipbench. Both
# encoders run single-threaded with bitexact flags, so rerunning this script with the same
# ffmpeg build gives the same bytes. Regenerating with ANOTHER ffmpeg/libvpx/x264 build
# changes the bytes, and with them the golden fingerprints pinned in
# test/unit/fingerprint.test.ts (update them from the new clips). Made with Debian 12's
# ffmpeg 5.1 (libvpx 1.12, x264 0.164).
#
# Usage: clips/make-clips.sh   (from anywhere; writes next to itself)
set -eu
cd "$(dirname "$0")"
command -v ffmpeg >/dev/null || { echo "ffmpeg not found" >&2; exit 1; }

SRC="testsrc2=size=640x360:rate=30"
COMMON="-hide_banner -loglevel error -y -fflags +bitexact -f lavfi -i $SRC -frames:v 120 -an"

# shellcheck disable=SC2086 # COMMON is a list of words on purpose
ffmpeg $COMMON \
  -c:v libvpx -b:v 600k -minrate 600k -maxrate 600k -deadline realtime -cpu-used 8 \
  -error-resilient 1 -g 30 -keyint_min 30 -auto-alt-ref 0 -lag-in-frames 0 \
  -threads 1 -pix_fmt yuv420p -flags:v +bitexact \
  -f ivf clip-vp8.ivf

# shellcheck disable=SC2086
ffmpeg $COMMON \
  -c:v libx264 -profile:v baseline -level 3.1 -preset veryfast -tune zerolatency \
  -b:v 600k -maxrate 600k -bufsize 600k -g 30 -keyint_min 30 -sc_threshold 0 -bf 0 \
  -x264-params "slices=1:repeat-headers=1:sliced-threads=0:scenecut=0" -threads 1 \
  -pix_fmt yuv420p -flags:v +bitexact -bsf:v h264_mp4toannexb \
  -f h264 clip-h264.h264

# shellcheck disable=SC2016 # the expression is ffmpeg's, not the shell's
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "aevalsrc=exprs='0.4*sin(2*PI*(200*t+450*t*t))+0.05*(random(0)-0.5)':s=48000:d=4" \
  -ac 1 -c:a libopus -b:a 32k -vbr off -frame_duration 20 -application audio \
  -flags:a +bitexact -fflags +bitexact \
  -f ogg clip-opus.ogg

ls -l clip-vp8.ivf clip-h264.h264 clip-opus.ogg
