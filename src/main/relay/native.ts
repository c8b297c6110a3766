// The built-in relay's native fan-out (docs/definitions.md#built-in-relay): a connected leg's
// video is sent by us instead of werift. Each publisher packet the forwarder offers a leg is
// queued on the leg (no copy); once per turn of the event loop every leg's queue is written
// leg by leg into one native send arena: the RTP header as werift's sender writes it (the leg's
// SSRC and payload type, abs-capture-time under the leg's id), the payload copied in once,
// SRTP-protected in place through OpenSSL, and the leg's packets written with one sendmmsg on
// the leg's own socket. Where the leg negotiated them, every packet carries the next
// transport-wide sequence number and a NACK's resend goes out on RTX (RFC 4588: the RTX SSRC,
// payload type and sequence number, the original sequence number before the payload), as
// werift's sender does. werift keeps signalling, ICE, DTLS and RTCP: its sender reports count
// what we sent, and the leg's NACKs are answered here from the last HISTORY packets sent to it,
// through LoseEvery as werift's responder is. A resend is counted (the leg's `resent`, werift's
// retransmittedPacketsSent through the wire) only once the kernel took it: a NACK of a packet no
// longer in the history, or a resend refused, counts nothing. A leg werift's internals do not fit
// stays werift's.
import { batchWrites, SendBatch, WRITE_BATCH, WRITE_SLOT_BYTES } from "../../net/batch-write.ts";
import { ABS_CAPTURE_TIME_URI, TRANSPORT_CC_URI } from "../../net/rtc.ts";
import { openssl } from "../../net/srtp/openssl.ts";
import { OpensslSrtpSender } from "../../net/srtp/protect.ts";
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
import { type LegWire, legWire, ntpNow } from "../../net/werift/leg-wire.ts";
import type { LegPacket } from "./leg-faults.ts";

/** Packets kept per leg for its NACKs (werift's sender keeps as many). */
export const HISTORY = 128;
/** Tag room left after every packet in a slot (GCM's tag is the longer). */
const TAG_ROOM = 16;

/** Which send path a relay's legs take, and why not the native one. */
export type SendPath = { path: "native"; reason: null } | { path: "werift"; reason: string };

/** Whether this thread can run the native fan-out (OpenSSL and sendmmsg through koffi), and why not. */
export function nativeSendPath(): SendPath {
  const w = batchWrites();
  if (!w.ok) return { path: "werift", reason: w.reason };
  const o = openssl();
  if (!o.ok) return { path: "werift", reason: o.reason };
  return { path: "native", reason: null };
}

/** What the fan-out reads of a leg (leg.ts's Leg has it): its abs-capture-time id, LoseEvery, its link. */
export interface FanoutLeg {
  absId: number;
  loss?: { pass(seq: number): boolean } | undefined;
  /** the leg's impaired link (link-send.ts): copies to write now; later ones come back to `later` */
  link?: { offer(data: Uint8Array, later: (copy: Buffer) => void): number } | undefined;
}

/** A leg the fan-out may take over: its transceiver, and where it keeps the fan-out's side. */
export interface AttachableLeg extends FanoutLeg {
  tr: RTCRtpTransceiver;
  native?: NativeLeg;
}

/** One leg's side of the fan-out: its wire, its SRTP, what waits to be written and what went out. */
export class NativeLeg {
  readonly leg: FanoutLeg;
  readonly wire: LegWire;
  readonly srtp: OpensslSrtpSender;
  /** queued for this turn; `again[i]`: packet i is a NACK's resend */
  readonly pending: LegPacket[] = [];
  readonly again: boolean[] = [];
  readonly history: (LegPacket | undefined)[] = new Array(HISTORY);
  /** NACK resends written for this leg */
  resent = 0;
  /** the next transport-wide sequence number, and the next RTX sequence number */
  twccSeq = 1;
  rtxSeq = 0;
  /** protected datagrams the leg's link held, now due: written as they are */
  readonly raw: Buffer[] = [];
  /** listed among the fan-out's legs to write this turn */
  dirty = false;

  /** where the leg's link hands a held copy back when it is due */
  readonly later: (copy: Buffer) => void;

  constructor(leg: FanoutLeg, wire: LegWire, later: (copy: Buffer) => void = () => {}) {
    this.leg = leg;
    this.later = later;
    this.wire = wire;
    this.srtp = new OpensslSrtpSender(wire.profile, wire.localMasterKey, wire.localMasterSalt);
  }
}

/**
 * Writes `p`'s clear RTP packet for leg `n` at `u[at..)` (`rtx`: its RTX header, the caller puts
 * the original sequence number before the payload); returns the header's length.
 */
export function writeRtp(u: Uint8Array, at: number, n: NativeLeg, p: LegPacket, rtx = false): number {
  const w = n.wire;
  const abs = p.abs ?? null;
  const id = n.leg.absId;
  const withAbs = abs !== null && id > 0 && abs.length > 0 && abs.length <= 16;
  const tid = w.twccId > 0 && w.twccId <= 14 ? w.twccId : 0;
  const ext = withAbs || tid > 0;
  const seq = rtx ? n.rtxSeq : p.seq;
  if (rtx) n.rtxSeq = (seq + 1) & 0xffff;
  const ssrc = rtx ? w.rtxSsrc : w.ssrc;
  u[at] = (ext ? 0x90 : 0x80) | (p.padding === true ? 0x20 : 0);
  u[at + 1] = (p.marker ? 0x80 : 0) | (rtx ? w.rtxPayloadType : w.payloadType);
  u[at + 2] = seq >>> 8;
  u[at + 3] = seq & 0xff;
  u[at + 4] = p.ts >>> 24;
  u[at + 5] = (p.ts >>> 16) & 0xff;
  u[at + 6] = (p.ts >>> 8) & 0xff;
  u[at + 7] = p.ts & 0xff;
  u[at + 8] = ssrc >>> 24;
  u[at + 9] = (ssrc >>> 16) & 0xff;
  u[at + 10] = (ssrc >>> 8) & 0xff;
  u[at + 11] = ssrc & 0xff;
  if (!ext) return 12;
  // RFC 8285 one-byte form: BEDE, length in words, each (id, len-1) and its data, zero padding
  let i = at + 16;
  if (withAbs) {
    u[i++] = (id << 4) | (abs.length - 1);
    u.set(abs, i);
    i += abs.length;
  }
  if (tid > 0) {
    const t = n.twccSeq;
    n.twccSeq = (t + 1) & 0xffff;
    u[i++] = (tid << 4) | 1;
    u[i++] = t >>> 8;
    u[i++] = t & 0xff;
  }
  const words = (i - at - 16 + 3) >>> 2;
  for (; i < at + 16 + words * 4; i++) u[i] = 0;
  u[at + 12] = 0xbe;
  u[at + 13] = 0xde;
  u[at + 14] = 0;
  u[at + 15] = words;
  return 16 + words * 4;
}

export class NativeFanout {
  private readonly batch = new SendBatch();
  private readonly dirty: NativeLeg[] = [];
  /** 1 where the batch's slot holds a NACK's resend */
  private readonly resendSlot = new Uint8Array(WRITE_BATCH);
  private scheduled = false;
  /** datagrams written, NACK resends among them, and packets not written (too large, refused) */
  written = 0;
  resent = 0;
  dropped = 0;
  private readonly run = (): void => this.flush();

  /** Takes the leg's video over; returns null, or why werift keeps sending it. */
  attach(leg: AttachableLeg): string | null {
    const wire = legWire(leg.tr, [ABS_CAPTURE_TIME_URI, TRANSPORT_CC_URI]);
    if (typeof wire === "string") return wire;
    const n = new NativeLeg(leg, wire, (d) => this.queueRaw(n, d));
    // counted when written (flushLeg), not when queued
    wire.onNack((seq) => {
      this.resend(n, seq);
      return 0;
    });
    leg.native = n;
    return null;
  }

  /** Queues one packet for the leg (written this turn). */
  queue(n: NativeLeg, p: LegPacket, again = false): void {
    n.pending.push(p);
    n.again.push(again);
    this.mark(n);
  }

  /** Queues a datagram already protected (a copy the leg's link held) to be written as it is. */
  queueRaw(n: NativeLeg, datagram: Buffer): void {
    n.raw.push(datagram);
    this.mark(n);
  }

  private mark(n: NativeLeg): void {
    if (!n.dirty) {
      n.dirty = true;
      this.dirty.push(n);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }

  /**
   * A NACK of `seq` on the leg: queues the packet again from its history; false where it is gone.
   * The leg's `resent` counts it once written.
   */
  resend(n: NativeLeg, seq: number): boolean {
    const p = n.history[seq % HISTORY];
    if (p === undefined || p.seq !== seq) return false;
    this.queue(n, p, true);
    return true;
  }

  /** Writes every leg's queue (normally from setImmediate; tests and benches may call it). */
  flush(): void {
    this.scheduled = false;
    const legs = this.dirty;
    if (legs.length === 0) return;
    const ntp = ntpNow();
    for (let i = 0; i < legs.length; i++) this.flushLeg(legs[i]!, ntp);
    legs.length = 0;
  }

  /**
   * The datagram built at `at` goes out `copies` times (0: the link lost it; 2: duplicated); a
   * resend counts once, as its first copy (a copy the link holds and writes later is not counted).
   */
  private pushLinked(n: NativeLeg, copies: number, at: number, len: number, resend: boolean): void {
    const b = this.batch;
    for (let k = 0; k < copies; k++) {
      if (k > 0) {
        if (b.full) this.send(n);
        b.bytes.copyWithin(b.offset(b.count), at, at + len);
      }
      this.resendSlot[b.count] = resend && k === 0 ? 1 : 0;
      b.push(len, n.wire.ip, n.wire.port);
    }
  }

  private flushLeg(n: NativeLeg, ntp: bigint): void {
    const { wire, pending, again } = n;
    const b = this.batch;
    const u = b.bytes;
    const loss = n.leg.loss;
    const link = n.leg.link;
    n.dirty = false;
    let packets = 0;
    let payloadBytes = 0;
    let headerBytes = 0;
    let lastTs = 0;
    // a leg werift would no longer send on (closed, consent lost, another pair): nothing goes out
    const live = wire.live();
    for (let i = 0; live && i < pending.length; i++) {
      const p = pending[i]!;
      const resend = again[i]!;
      if (!resend) n.history[p.seq % HISTORY] = p;
      if (b.full) this.send(n);
      const at = b.offset(b.count);
      const rtx = resend && wire.rtxPayloadType >= 0;
      const osn = rtx ? 2 : 0;
      const h = writeRtp(u, at, n, p, rtx);
      if (h + osn + p.payload.length + TAG_ROOM > WRITE_SLOT_BYTES) {
        this.dropped++;
        continue;
      }
      if (!resend) {
        // counted as werift's sender counts: LoseEvery's loss lies beneath it
        packets++;
        payloadBytes += p.payload.length;
        headerBytes += h;
        lastTs = p.ts;
      }
      // LoseEvery: beneath the NACK responder, so the history above still holds the packet
      if (loss !== undefined && !loss.pass(p.seq)) continue;
      if (rtx) {
        u[at + h] = p.seq >>> 8;
        u[at + h + 1] = p.seq & 0xff;
      }
      u.set(p.payload, at + h + osn);
      const len = n.srtp.protect(u, at, h, p.payload.length + osn);
      if (link === undefined) {
        this.resendSlot[b.count] = resend ? 1 : 0;
        b.push(len, wire.ip, wire.port);
      } else this.pushLinked(n, link.offer(u.subarray(at, at + len), n.later), at, len, resend);
    }
    for (let i = 0; live && i < n.raw.length; i++) {
      const d = n.raw[i]!;
      if (b.full) this.send(n);
      u.set(d, b.offset(b.count));
      this.resendSlot[b.count] = 0;
      b.push(d.length, wire.ip, wire.port);
    }
    if (b.count > 0) this.send(n);
    pending.length = 0;
    again.length = 0;
    n.raw.length = 0;
    if (packets > 0) wire.sent(packets, payloadBytes, headerBytes, lastTs, ntp);
  }

  /** Writes the batch on the leg's socket; the resends the kernel took are counted. */
  private send(n: NativeLeg): void {
    const b = this.batch;
    const count = b.count;
    this.written += b.flush(n.wire.fd);
    let resent = 0;
    for (let i = 0; i < count; i++) if (this.resendSlot[i] === 1 && b.wrote[i] === 1) resent++;
    if (resent === 0) return;
    n.resent += resent;
    this.resent += resent;
    n.wire.retransmitted(resent);
  }
}
