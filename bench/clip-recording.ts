// The embedded clips as a viewer receives them, for the hot-path benchmarks: packetised at MTU
// 1200 exactly as the publisher sends them, arriving at the clip's frame rate with 20 µs between
// a frame's packets, 2 ms transit and up to 200 µs of deterministic jitter, abs-capture-time
// stamped, and each frame's send instant for the send log.
import type { Clip } from "../src/core/clip/clip.ts";
import { packetizeH264 } from "../src/core/codec/h264.ts";
import { packetizeVp8 } from "../src/core/codec/vp8.ts";
import { absCaptureToUnixNs, unixNsToAbsCapture } from "../src/core/rtp/abs-capture-time.ts";

export const MTU = 1200;
export const MS = 1e6;
const TRANSIT_NS = 2 * MS;
const PACKET_SPACING_NS = 20_000;
const JITTER_NS = 200_000;
export const START_NS = 1e15; // monotonic origin of the synthetic stream
export const WALL_MINUS_MONO_NS = 1.76e18 - START_NS;

/** One received packet as the viewer's read loop hands it over. */
export interface Packet {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
  arrivalNs: number;
  captureWallNs: number;
  /** ≥ 0 on a frame's first packet: the frame's absolute index k, logged before it is sent */
  logK: number;
  sendNs: number;
}

/** The clip looped from k = 0 until `count` packets, with the publisher's pacing and payloading. */
export function recording(clip: Clip, count: number): Packet[] {
  const out: Packet[] = [];
  const frameNs = (clip.ticks / 90_000) * 1e9;
  const stamp = Buffer.alloc(8);
  let seq = 40_000;
  let rnd = 12345;
  let lastArrival = 0;
  for (let k = 0; out.length < count; k++) {
    const t0 = START_NS + Math.round(k * frameNs);
    const frame = clip.frames[k % clip.frames.length]!;
    const payloads = clip.codec === "vp8" ? packetizeVp8(frame, MTU, k & 0x7fff) : packetizeH264(frame, MTU);
    for (let j = 0; j < payloads.length && out.length < count; j++) {
      const sentNs = t0 + j * PACKET_SPACING_NS;
      rnd = (rnd * 1103515245 + 12345) >>> 0;
      const arrivalNs = Math.max(lastArrival, sentNs + TRANSIT_NS + (rnd % JITTER_NS));
      lastArrival = arrivalNs;
      unixNsToAbsCapture(sentNs + WALL_MINUS_MONO_NS, stamp);
      out.push({
        seq,
        ts: (0xffff0000 + k * clip.ticks) >>> 0, // wraps within the first loop
        marker: j === payloads.length - 1,
        payload: payloads[j]!,
        arrivalNs,
        captureWallNs: absCaptureToUnixNs(stamp),
        logK: j === 0 ? k : -1,
        sendNs: t0,
      });
      seq = (seq + 1) & 0xffff;
    }
  }
  return out;
}
