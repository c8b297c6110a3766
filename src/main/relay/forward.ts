// One stream of the built-in relay and how its publisher's packets reach the viewer legs: the
// same sequence number and timestamp on every leg (SFU-like), abs-capture-time re-mapped per leg,
// every other extension dropped; the relay's fault knobs and the tests' burst and wrap shift
// applied on the way; a viewer's keyframe request goes to the publisher as a PLI. A leg the native
// fan-out took over (native.ts) gets its packets queued there; the others through werift's sender.
// With simulcast every layer's packets come here and each leg takes its own layer's, rewritten
// (docs/definitions.md#relay-layer-choice); such legs are never a relay thread's.

import { keyframeStartH264 } from "../../core/codec/h264.ts";
import { keyframeStartVp8 } from "../../core/codec/vp8.ts";
import { onKeyframeRequest } from "../../net/rtcp-feedback.ts";
import { type RTCPeerConnection, RtpHeader, RtpPacket } from "../../net/werift/api.ts";
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
import { TemporalDrop } from "./temporal-drop.ts";
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
  /** the test hook dropTopLayerEvery's state (temporal-drop.ts) */
  topDrop?: TemporalDrop;
}

/**
 * Every keyframe request (PLI or FIR) of a viewer leg goes to the stream's publisher as a PLI, on
 * the SSRC of the layer the leg takes with simulcast.
 */
export function forwardKeyframeRequests(leg: Leg, stream: Stream): void {
  onKeyframeRequest(leg.tr, () => {
    const layers = stream.layers;
    const rid = layers === undefined ? null : (leg.layer?.current ?? layers.forwarded);
    if (requestKeyframe(stream, rid)) stream.keyframeRequests = (stream.keyframeRequests ?? 0) + 1;
  });
}

/** A PLI to the publisher naming layer `rid`'s SSRC (null: the one video SSRC); false when none is known. */
export function requestKeyframe(stream: Stream, rid: string | null): boolean {
  const receiver = stream.publisher?.getTransceivers().find((t) => t.kind === "video")?.receiver;
  const ssrc = rid !== null ? stream.layers?.ssrcs.get(rid) : receiver?.tracks[0]?.ssrc;
  if (receiver === undefined || ssrc === undefined) return false;
  receiver.sendRtcpPLI(ssrc).catch(() => {});
  return true;
}

function keyStart(stream: Stream, payload: Buffer): boolean {
  return stream.codec === "h264" ? keyframeStartH264(payload) : keyframeStartVp8(payload);
}

export function forward(
  stream: Stream,
  rtp: RtpPacket,
  abs: unknown,
  opts: RelayOptions,
  gate: CapacityGate | null = null,
  send: RelaySend | null = null,
  released = false,
  rid: string | null = null,
): void {
  const test = opts.test;
  // a stream-wide stall holds the packet for every leg; it comes back through here, released
  if (!released && (test?.stallStream !== undefined || stream.stall !== undefined)) {
    const now = performance.now();
    if (test?.stallStream !== undefined) stream.stall ??= new StreamStall(test.stallStream, now);
    const again = (): void => forward(stream, rtp, abs, opts, gate, send, true, rid);
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
    if (!stream.burst.admit(connected, keyStart(stream, rtp.payload))) return;
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
  const top = test?.dropTopLayerEvery;
  if (top !== undefined && stream.codec === "vp8") stream.topDrop ??= new TemporalDrop(top);
  const streamDrop =
    (test?.dropStreamEvery !== undefined && rtp.header.sequenceNumber % test.dropStreamEvery === 0) ||
    stream.topDrop?.drop(rtp.header.timestamp, rtp.payload, top !== undefined) === true;
  // the relay threads' legs read the packet from the ring, written once (threads.ts); a simulcast
  // stream's legs are the main thread's (send-path.ts)
  if (rid === null) send?.threads?.write(packet);
  const fanout = send?.fanout ?? null;
  const key = rid !== null && keyStart(stream, rtp.payload);
  const now = performance.now();
  if (rid !== null) stream.layers?.rates.add(rid, rtp.payload.length, now);
  for (const leg of stream.legs) {
    if (!leg.sending || leg.forwarded >= limit || leg.threaded === true) continue;
    const own = rid === null ? packet : legLayerPacket(leg, stream, rid, packet, key);
    if (own === null) continue;
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
    leg.estimate?.sent(own.payload.length, now);
    const out = leg.fault ? leg.fault.apply(own, now) : [own];
    for (const p of out) toLeg(leg, p, rtp.header.payloadType, fanout);
  }
  // padding-only packets (a test hook) go on a single-layer stream only
  const pads = rid === null ? (padding?.after(marker, test?.paddingStream !== undefined) ?? 0) : 0;
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

/**
 * Layer `rid`'s packet as leg `leg` sends it (docs/definitions.md#relay-layer-choice): rewritten by
 * the leg's layer choice, or null when the leg takes another layer.
 */
function legLayerPacket(leg: Leg, stream: Stream, rid: string, p: LegPacket, key: boolean): LegPacket | null {
  const choice = leg.layer;
  if (choice === undefined) return rid === stream.layers?.forwarded ? p : null;
  const r = choice.take(rid, p.seq, p.ts, key);
  if (r === null) return null;
  return r.seq === p.seq && r.ts === p.ts ? p : { ...p, seq: r.seq, ts: r.ts };
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
