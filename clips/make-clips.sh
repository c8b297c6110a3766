#!/bin/sh
# Remakes the three embedded clips (spec §11) that whipbench publishes:
#
#   clips/clip-vp8.ivf     VP8 in IVF (FourCC VP80, time base 1/30 -> 3000 ticks per frame)
#   clips/clip-h264.h264   H.264 Annex-B elementary stream, 4-byte start codes
#   clips/clip-opus.ogg    Opus in Ogg (RFC 7845), the audio track of a run with "audio": true
#   clips/clip-{vp8,h264}-{l,m,h}.{ivf,h264}
#                          the simulcast layers (docs/definitions.md#simulcast-layers): three encodings
#                          of one source, rid l 320x180 100 kbit/s, m 640x360 300 kbit/s,
#                          h 1280x720 900 kbit/s
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
#   layers   one ffmpeg run per codec: testsrc2 at 1280x720, 30 fps, 4 s, split three ways and
#            scaled (bicubic) to each layer, each encoded as the clips above (same GOP, same
#            flags; H.264 level 3.1 fits 720p30, so one profile-level-id serves every layer),
#            except VP8's cpu-used -8: in libvpx's realtime mode a positive cpu-used lets the
#            encoder pick its speed from how long frames take, so the bytes depend on the
#            machine's load; a negative one fixes speed 8 and the bytes:
#            120 frames each, keyframes on the same frames 0, 30, 60, 90. Different pictures
#            and rates give every frame of every layer its own fingerprint
#            (test/unit/simulcast-clips.test.ts checks it).
#   VP8 TL   clips/clip-vp8-tl.ivf: the VP8 clip's source, GOP, rate and flags (cpu-used -8, for the
#            reason above) with two temporal layers in libvpx's 2-layer pattern
#            (ts_layering_mode=2, periodicity 2, ts_layer_id 0,1): even frames are layer 0 and refresh
#            the last-frame buffer, odd frames are layer 1, reference only that buffer and refresh no
#            buffer (test/unit/vp8-tl-clip.test.ts reads it from each frame header). IVF carries no
#            layer id: whipbench derives it from the frame index (docs/definitions.md#clips).
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
  -c:v libvpx -b:v 600k -minrate 600k -maxrate 600k -deadline realtime -cpu-used -8 \
  -error-resilient 1 -g 30 -keyint_min 30 -auto-alt-ref 0 -lag-in-frames 0 \
  -ts-parameters ts_number_layers=2:ts_target_bitrate=360,600:ts_rate_decimator=2,1:ts_periodicity=2:ts_layer_id=0,1:ts_layering_mode=2 \
  -threads 1 -pix_fmt yuv420p -flags:v +bitexact \
  -f ivf clip-vp8-tl.ivf

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

# the simulcast layers: one source, split and scaled, one encoder per layer
LAYERS_SRC="testsrc2=size=1280x720:rate=30:duration=4"
SPLIT="[0:v]split=3[a][b][c];[a]scale=320:180:flags=bicubic[l];[b]scale=640:360:flags=bicubic[m];[c]null[h]"
vp8_layer() { # <label> <kbit/s> <file>: the output options of one VP8 layer
  echo -map "[$1]" -frames:v 120 -c:v libvpx -b:v "$2k" -minrate "$2k" -maxrate "$2k" \
    -deadline realtime -cpu-used -8 -error-resilient 1 -g 30 -keyint_min 30 -auto-alt-ref 0 \
    -lag-in-frames 0 -threads 1 -pix_fmt yuv420p -flags:v +bitexact -f ivf "$3"
}
h264_layer() { # <label> <kbit/s> <file>: the output options of one H.264 layer
  echo -map "[$1]" -frames:v 120 -c:v libx264 -profile:v baseline -level 3.1 -preset veryfast \
    -tune zerolatency -b:v "$2k" -maxrate "$2k" -bufsize "$2k" -g 30 -keyint_min 30 \
    -sc_threshold 0 -bf 0 -x264-params "slices=1:repeat-headers=1:sliced-threads=0:scenecut=0" \
    -threads 1 -pix_fmt yuv420p -flags:v +bitexact -bsf:v h264_mp4toannexb -f h264 "$3"
}
LAYERS_IN="-hide_banner -loglevel error -y -fflags +bitexact -f lavfi -i $LAYERS_SRC -an"
# shellcheck disable=SC2046,SC2086 # the functions print lists of words on purpose
ffmpeg $LAYERS_IN -filter_complex "$SPLIT" \
  $(vp8_layer l 100 clip-vp8-l.ivf) $(vp8_layer m 300 clip-vp8-m.ivf) $(vp8_layer h 900 clip-vp8-h.ivf)
# shellcheck disable=SC2046,SC2086
ffmpeg $LAYERS_IN -filter_complex "$SPLIT" \
  $(h264_layer l 100 clip-h264-l.h264) $(h264_layer m 300 clip-h264-m.h264) \
  $(h264_layer h 900 clip-h264-h.h264)

ls -l clip-vp8.ivf clip-vp8-tl.ivf clip-h264.h264 clip-opus.ogg clip-vp8-?.ivf clip-h264-?.h264
