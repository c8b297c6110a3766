// The simulcast publisher's layers (docs/definitions.md#simulcast-publisher): every absolute frame f
// goes out on each layer in turn, lowest first, with the same RTP timestamp, each layer on its own
// SSRC and sequence numbers, every packet carrying the mid and the layer's rid (and abs-capture-time
// where negotiated). Layer j's frame is logged as k = L·f + j with clip index j·N + i, its own send
// instant at its own first packet (send-instant.ts), so a viewer's frame matches the send of the
// layer it came from. A PLI or FIR naming a layer's SSRC cuts that layer's GOP short; one naming no
// layer's SSRC cuts every layer's (docs/definitions.md#keyframes-on-request).

import { type KeyframeRequestKind, KeyframeRequests } from "../../core/clip/keyframe-requests.ts";
import type { Clip } from "../../core/clip/model.ts";
import type { SimulcastClips } from "../../core/clip/simulcast.ts";
import { monoNs, type WallAnchor, wallOf } from "../../core/clock/clock.ts";
import { unixNsToAbsCapture } from "../../core/rtp/abs-capture-time.ts";
import { extensionId, RID_URI, SDES_MID_URI } from "../../net/rtc.ts";
import { type RTCRtpTransceiver, RtpHeader } from "../../net/werift/api.ts";
import { layerSend } from "../../net/werift/layer-send.ts";
import type { SendRtp } from "../../net/werift/patches.ts";
import { type Encoding, packetize } from "./rtp-out.ts";
import type { PendingFrame, SendInstants } from "./send-instant.ts";

/** One layer's sending state: its encoding (SSRC, sequence number, picture id) and more. */
export interface LayerState extends Encoding {
  rid: string;
  clip: Clip;
  /** the clip index to send next */
  i: number;
  readonly requests: KeyframeRequests;
  /** the rid's bytes, the sdes:rtp-stream-id payload */
  readonly ridBytes: Buffer;
  framesSent: number;
  packetsSent: number;
  bytesSent: number;
}

/** The negotiated extension ids (0: not negotiated) and the transceiver's mid and payload type. */
export interface LayerWire {
  send: SendRtp;
  payloadType: number;
  mid: string;
  midId: number;
  ridId: number;
  /** abs-capture-time's id when the publisher stamps, else 0 */
  absId: number;
  anchor: WallAnchor;
}

const random32 = (): number => (Math.random() * 0x1_0000_0000) >>> 0;

export class SimulcastLayers {
  readonly layers: LayerState[];
  private readonly layerFrames: number;

  constructor(sc: SimulcastClips, keyframeOnRequest: boolean) {
    this.layerFrames = sc.layerFrames;
    const ssrcs = new Set<number>();
    this.layers = sc.layers.map(({ rid, clip }) => {
      let ssrc = random32();
      while (ssrc === 0 || ssrcs.has(ssrc)) ssrc = random32();
      ssrcs.add(ssrc);
      return {
        rid,
        clip,
        ssrc,
        seq: Math.floor(Math.random() * 0x1_0000),
        pictureId: Math.floor(Math.random() * 0x8000),
        tl0PicIdx: 0, // no layer clip carries temporal layers
        i: 0,
        requests: new KeyframeRequests(clip.keyframes, keyframeOnRequest),
        ridBytes: Buffer.from(rid, "ascii"),
        framesSent: 0,
        packetsSent: 0,
        bytesSent: 0,
      };
    });
  }

  /** A keyframe request naming `mediaSsrc`: that layer's, or every layer's when it names none of them. */
  request(kind: KeyframeRequestKind, mediaSsrc: number): void {
    const one = this.layers.find((l) => l.ssrc === mediaSsrc);
    for (const l of one !== undefined ? [one] : this.layers) l.requests.request(kind);
  }

  /** The requests over every layer (a request naming no layer counts on each). */
  counts(): { pliReceived: number; firReceived: number; keyframesOnRequest: number } {
    let pli = 0;
    let fir = 0;
    let on = 0;
    for (const l of this.layers) {
      pli += l.requests.pliReceived;
      fir += l.requests.firReceived;
      on += l.requests.keyframesOnRequest;
    }
    return { pliReceived: pli, firReceived: fir, keyframesOnRequest: on };
  }

  /**
   * Absolute frame `f` at RTP timestamp `ts` on every layer, lowest first; `counts` takes every
   * packet written. Each layer's next clip index is chosen after its frame went out.
   */
  async sendFrame(
    f: number,
    ts: number,
    wire: LayerWire,
    instants: SendInstants,
    atSocket: boolean,
    counts: { packetsSent: number; bytesSent: number },
  ): Promise<void> {
    const L = this.layers.length;
    for (let j = 0; j < L; j++) {
      const l = this.layers[j] as LayerState;
      const frame = l.clip.frames[l.i] as Uint8Array;
      const payloads = packetize(l.clip.codec, frame, l);
      const sending: PendingFrame = {
        k: L * f + j,
        i: j * this.layerFrames + l.i,
        ts,
        ssrc: l.ssrc,
        startNs: monoNs(),
        stamped: false,
      };
      l.requests.sent(l.i);
      instants.begin(sending, atSocket);
      for (let p = 0; p < payloads.length; p++) {
        const header = this.header(l, wire, ts, p === payloads.length - 1);
        if (wire.absId !== 0) {
          const at = monoNs();
          if (p === 0) sending.captureNs = at;
          const abs = Buffer.alloc(8);
          unixNsToAbsCapture(wallOf(wire.anchor, at), abs);
          header.extensions.push({ id: wire.absId, payload: abs });
          header.extensions.sort((a, b) => a.id - b.id);
        }
        const payload = payloads[p] as Uint8Array;
        const written = await wire.send(
          Buffer.from(payload.buffer, payload.byteOffset, payload.length),
          header,
        );
        if (written > 0) {
          counts.packetsSent++;
          counts.bytesSent += payload.length;
          l.packetsSent++;
          l.bytesSent += payload.length;
        }
      }
      instants.end(sending);
      l.framesSent++;
      l.i = l.requests.next(l.i, monoNs());
    }
  }

  private header(l: LayerState, wire: LayerWire, ts: number, marker: boolean): RtpHeader {
    const header = new RtpHeader({
      sequenceNumber: l.seq,
      timestamp: ts,
      marker,
      payloadType: wire.payloadType,
      ssrc: l.ssrc,
    });
    l.seq = (l.seq + 1) & 0xffff;
    header.extension = true;
    const ext: { id: number; payload: Buffer }[] = [];
    if (wire.midId !== 0) ext.push({ id: wire.midId, payload: Buffer.from(wire.mid, "ascii") });
    if (wire.ridId !== 0) ext.push({ id: wire.ridId, payload: l.ridBytes });
    header.extensions = ext.sort((a, b) => a.id - b.id);
    return header;
  }
}

/** The layers' wire on a connected transceiver: its RTP write, payload type, mid and extension ids. */
export function layerWire(tr: RTCRtpTransceiver, absId: number, anchor: WallAnchor): LayerWire {
  return {
    send: layerSend(tr),
    payloadType: tr.codecs[0]?.payloadType ?? 96,
    mid: tr.mid ?? "0",
    midId: extensionId(tr.headerExtensions, SDES_MID_URI),
    ridId: extensionId(tr.headerExtensions, RID_URI),
    absId,
    anchor,
  };
}
