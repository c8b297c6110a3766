// One RTP packet out through a transceiver's sender, counted once werift wrote it; a write that
// fails (a closing connection) is skipped, not counted (docs/definitions.md#publisher-pacing). And
// one frame's packets of the one-encoding publisher: packetized, headed, abs-capture-time stamped.
import type { WallAnchor } from "../../core/clock/clock.ts";
import { monoNs, wallOf } from "../../core/clock/clock.ts";
import { packetizeH264 } from "../../core/codec/h264.ts";
import { packetizeVp8 } from "../../core/codec/vp8.ts";
import { unixNsToAbsCapture } from "../../core/rtp/abs-capture-time.ts";
import type { Codec } from "../../core/types.ts";
import { type RTCRtpTransceiver, RtpHeader, RtpPacket } from "../../net/werift/api.ts";
import type { PendingFrame } from "./send-instant.ts";

export const MTU = 1200;

export async function sendCounted(
  tr: RTCRtpTransceiver,
  header: RtpHeader,
  payload: Uint8Array,
  counts: { packetsSent: number; bytesSent: number },
): Promise<void> {
  try {
    await tr.sender.sendRtp(
      new RtpPacket(header, Buffer.from(payload.buffer, payload.byteOffset, payload.length)),
    );
    counts.packetsSent++;
    counts.bytesSent += payload.length;
  } catch {
    // a closing connection: skip the write
  }
}

/**
 * One encoding's sending state: its SSRC, next sequence number, VP8 picture id and, for a clip
 * with temporal layers, the TL0PICIDX of the last base-layer frame sent.
 */
export interface Encoding {
  ssrc: number;
  seq: number;
  pictureId: number;
  tl0PicIdx: number;
}

/** Random SSRC, first sequence number and picture id. */
export function newEncoding(): Encoding {
  return {
    ssrc: (Math.random() * 0x1_0000_0000) >>> 0,
    seq: Math.floor(Math.random() * 0x1_0000),
    pictureId: Math.floor(Math.random() * 0x8000),
    tl0PicIdx: Math.floor(Math.random() * 0x100),
  };
}

/**
 * A frame's RTP payloads at MTU; a VP8 frame takes the encoding's next picture id. `tid`, a VP8
 * frame's temporal layer (docs/definitions.md#vp8-temporal-layer-clip), adds the layer fields: a
 * base-layer frame takes the next TL0PICIDX, an upper-layer one the last and Y = 1 (the clip's
 * upper-layer frames reference only the last base-layer frame).
 */
export function packetize(codec: Codec, frame: Uint8Array, enc: Encoding, tid?: number): Uint8Array[] {
  if (codec !== "vp8") return packetizeH264(frame, MTU);
  if (tid === 0) enc.tl0PicIdx = (enc.tl0PicIdx + 1) & 0xff;
  const temporal = tid === undefined ? undefined : { tid, sync: tid > 0, tl0PicIdx: enc.tl0PicIdx };
  const out = packetizeVp8(frame, MTU, enc.pictureId, temporal);
  enc.pictureId = (enc.pictureId + 1) & 0x7fff;
  return out;
}

/**
 * A frame's packets through the transceiver's sender, abs-capture-time on each when `abs` is given
 * (the first packet's instant noted in `sending`).
 */
export async function sendPackets(
  tr: RTCRtpTransceiver,
  payloads: readonly Uint8Array[],
  sending: PendingFrame,
  enc: Encoding,
  abs: { id: number; anchor: WallAnchor } | null,
  counts: { packetsSent: number; bytesSent: number },
): Promise<void> {
  for (let j = 0; j < payloads.length; j++) {
    const header = new RtpHeader({
      sequenceNumber: enc.seq,
      timestamp: sending.ts,
      marker: j === payloads.length - 1,
      payloadType: 96,
      ssrc: enc.ssrc,
    });
    enc.seq = (enc.seq + 1) & 0xffff;
    if (abs !== null) {
      const ext = Buffer.alloc(8);
      const at = monoNs();
      if (j === 0) sending.captureNs = at;
      unixNsToAbsCapture(wallOf(abs.anchor, at), ext);
      header.extension = true;
      header.extensions = [{ id: abs.id, payload: ext }];
    }
    await sendCounted(tr, header, payloads[j] as Uint8Array, counts);
  }
}
