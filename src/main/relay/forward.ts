// One stream of the built-in relay and how its publisher's packets reach the viewer legs: the
// same sequence number and timestamp on every leg (SFU-like), abs-capture-time re-mapped per leg,
// every other extension dropped; the relay's fault knobs and the tests' burst and wrap shift
// applied on the way; a viewer's keyframe request goes to the publisher as a PLI. A leg the native
// fan-out took over (native.ts) gets its packets queued there; the others through werift's sender.

import { keyframeStartH264 } from "../../core/codec/h264.ts";
import { keyframeStartVp8 } from "../../core/codec/vp8.ts";
import { onKeyframeRequest } from "../../net/rtcp-feedback.ts";
import {
  type RTCPeerConnection,
  type RTCRtpTransceiver,
  RtpHeader,
  RtpPacket,
} from "../../net/werift/api.ts";
import { type CapacityGate, capacityDrop } from "./capacity.ts";
import { Burst, WrapShift } from "./conformance.ts";
import type { StreamLayers } from "./layers.ts";
import type { Leg } from "./leg.ts";
import type { LegPacket } from "./leg-faults.ts";
import type { NativeFanout } from "./native.ts";
import type { RelayOptions } from "./options.ts";
import type { RelaySend } from "./send-path.ts";
import { StreamPadding } from "./stream-padding.ts";
import { StreamStall } from "./stream-stall.ts";
import { toPictureId7, withoutPictureId } from "./vp8-pictureid7.ts";

export interface Stream {
  publisher: RTCPeerConnection | null;
  codec: "vp8" | "h264" | null;
  ready: boolean;
  readyWaiters: (() => void)[];
  legs: Set<Leg>;
  attempts: number;
  burst?: Burst;
  /** viewers' keyframe requests forwarded to the publisher */
  keyframeRequests?: number;
  wrap?: WrapShift;
  /** the publisher sends an audio track (audio.ts) */
  audio?: boolean;
  /** a simulcast publisher's layers and the one forwarded (publisher-in.ts) */
  layers?: StreamLayers;
  /** the test hook stallStream's state (stream-stall.ts) */
  stall?: StreamStall;
  /** the test hook paddingStream's state (stream-padding.ts) */
  padding?: StreamPadding;
}

/**
 * Every keyframe request (PLI or FIR) of a viewer leg goes to the stream's publisher as a PLI, on
 * the forwarded layer's SSRC with simulcast.
 */
export function forwardKeyframeRequests(leg: RTCRtpTransceiver, stream: Stream): void {
  onKeyframeRequest(leg, () => {
    const receiver = stream.publisher?.getTransceivers().find((t) => t.kind === "video")?.receiver;
    const ssrc = stream.layers !== undefined ? stream.layers.ssrc : receiver?.tracks[0]?.ssrc;
    if (receiver === undefined || ssrc === undefined) return;
    stream.keyframeRequests = (stream.keyframeRequests ?? 0) + 1;
    receiver.sendRtcpPLI(ssrc).catch(() => {});
  });
}

export function forward(
  stream: Stream,
  rtp: RtpPacket,
  abs: unknown,
  opts: RelayOptions,
  gate: CapacityGate | null = null,
  send: RelaySend | null = null,
  released = false,
): void {
  const test = opts.test;
  // a stream-wide stall holds the packet for every leg; it comes back through here, released
  if (!released && (test?.stallStream !== undefined || stream.stall !== undefined)) {
    const now = performance.now();
    if (test?.stallStream !== undefined) stream.stall ??= new StreamStall(test.stallStream, now);
    const again = (): void => forward(stream, rtp, abs, opts, gate, send, true);
    if (stream.stall?.hold(now, test?.stallStream !== undefined, again)) return;
  }
  const absPayload = !opts.stripExtensions && Buffer.isBuffer(abs) ? abs : null;
  let seq = rtp.header.sequenceNumber;
  let ts = rtp.header.timestamp;
  let limit = Number.POSITIVE_INFINITY;
  if (test?.burst) {
    stream.burst ??= new Burst(test.burst);
    let connected = 0;
    for (const leg of stream.legs) if (leg.sending) connected++;
    const key = stream.codec === "h264" ? keyframeStartH264(rtp.payload) : keyframeStartVp8(rtp.payload);
    if (!stream.burst.admit(connected, key)) return;
    limit = stream.burst.limit;
  }
  if (test?.wrapAfterPackets) {
    stream.wrap ??= new WrapShift(test.wrapAfterPackets);
    stream.wrap.see(seq, ts);
    seq = stream.wrap.seq(seq);
    ts = stream.wrap.ts(ts);
  }
  // the renumbering outlasts the fault: the numbers the legs saw go on from where they are
  if (test?.paddingStream !== undefined) stream.padding ??= new StreamPadding(test.paddingStream);
  const padding = stream.padding;
  if (padding !== undefined) seq = padding.seq(seq);
  const marker = opts.clearMarker || test?.clearMarkerStream === true ? false : rtp.header.marker;
  const packet: LegPacket = {
    seq,
    ts,
    marker,
    payload: vp8Rewrite(stream, rtp.payload, opts),
    abs: absPayload,
  };
  const over = gate?.over() === true;
  const streamDrop =
    test?.dropStreamEvery !== undefined && rtp.header.sequenceNumber % test.dropStreamEvery === 0;
  // the relay threads' legs read the packet from the ring, written once (threads.ts)
  send?.threads?.write(packet);
  const fanout = send?.fanout ?? null;
  for (const leg of stream.legs) {
    if (!leg.sending || leg.forwarded >= limit || leg.threaded === true) continue;
    leg.forwarded++;
    if (streamDrop) continue;
    if (opts.dropEvery) {
      const drop =
        leg.forwarded % opts.dropEvery === 0 &&
        leg.forwarded <= (test?.dropUntilPacket ?? Number.POSITIVE_INFINITY);
      leg.cuts?.see(ts, drop);
      if (drop) continue;
    }
    if (over && capacityDrop(leg)) continue;
    const out = leg.fault ? leg.fault.apply(packet, performance.now()) : [packet];
    for (const p of out) toLeg(leg, p, rtp.header.payloadType, fanout);
  }
  const pads = padding?.after(marker, test?.paddingStream !== undefined) ?? 0;
  for (let i = 1; i <= pads && padding !== undefined; i++) {
    const pad: LegPacket = {
      seq: (seq + i) & 0xffff,
      ts,
      marker: false,
      payload: padding.payload,
      padding: true,
    };
    for (const leg of stream.legs) {
      if (leg.sending && leg.threaded !== true) toLeg(leg, pad, rtp.header.payloadType, fanout);
    }
  }
}

/** The test hooks' rewrites of a VP8 payload descriptor (7-bit PictureIDs, none at all). */
function vp8Rewrite(stream: Stream, payload: Buffer, opts: RelayOptions): Buffer {
  if (stream.codec !== "vp8") return payload;
  if (opts.test?.pictureId7 === true) return toPictureId7(payload);
  return opts.test?.noPictureId === true ? withoutPictureId(payload) : payload;
}

/** One packet to one leg: queued on the native fan-out where it took the leg, else werift's sender. */
function toLeg(leg: Leg, p: LegPacket, payloadType: number, fanout: NativeFanout | null): void {
  if (leg.native !== undefined && fanout !== null) {
    fanout.queue(leg.native, p);
    return;
  }
  const header = new RtpHeader({ sequenceNumber: p.seq, timestamp: p.ts, marker: p.marker, payloadType });
  // a padding-only packet's payload is its padding (werift's SRTP leaves padding to the caller)
  if (p.padding === true) header.padding = true;
  if (p.abs && leg.absId) {
    header.extension = true;
    header.extensions = [{ id: leg.absId, payload: p.abs }];
  }
  leg.tr.sender.sendRtp(new RtpPacket(header, p.payload)).catch(() => {});
}
