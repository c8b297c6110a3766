// Our SRTP and RTP stage of a viewer's chain, on the lean and arena paths (chain.ts): each media
// datagram, stamped already, is unprotected (node:crypto, or OpenSSL in place on the arena path:
// src/net/srtp/), its header fields read in place, counted by our reception statistics and our
// NACK generator, and handed to the next stage (the pipeline's feed, stages.ts); receiver
// reports go out on our own timer from those statistics. Where the viewer's profile negotiated
// them, each packet's transport-wide sequence number goes to the transport feedback
// (twcc-sender.ts) and a retransmission on the RTX payload type (RFC 4588) has its original
// sequence number restored and its payload shifted before statistics, NACK and the pipeline see
// it (docs/definitions.md#viewer-profile).
// Inbound SRTCP is unprotected too, for the sender report's LSR. werift keeps ICE (consent),
// DTLS and the keys; it never sees this transport's media.

import { absCaptureAtToUnixNs } from "../../core/rtp/abs-capture-time.ts";
import type { SrtcpUnprotect, SrtpUnprotect } from "../../core/srtp/srtp.ts";
import { isMedia, isRtcp } from "../../core/wire/first-byte.ts";
import { type SrtpBackend, srtpReceivers } from "../../net/srtp/unprotect.ts";
import { NackGenerator } from "./nack.ts";
import { NackSender } from "./nack-sender.ts";
import type { OwnSrtpOptions } from "./receiver-options.ts";
import { ReceiverReports } from "./receiver-reports.ts";
import { ReceptionStats } from "./reception.ts";
import { senderReportLsr } from "./rtcp-out.ts";
import {
  extensionLength,
  extensionOffset,
  findExtension,
  rtpHasPadding,
  rtpHeaderLength,
  rtpMarker,
  rtpSeq,
  rtpSsrc,
  rtpTimestamp,
} from "./rtp-read.ts";
import { type PacketStage, ReceivedPacket, type ReceiveStage } from "./stages.ts";
import { TwccSender } from "./twcc-sender.ts";

export type { OwnSrtpOptions } from "./receiver-options.ts";

const none = (): null => null;
const noop = (): void => {};
/** The payload handed on with a repeated packet (never read: the pipeline counts a duplicate). */
const NO_BYTES = new Uint8Array(0);

export class OwnSrtpStage implements ReceiveStage {
  /** datagrams that were not delivered, by reason */
  readonly dropped = { malformed: 0, payloadType: 0, foreignSsrc: 0, srtp: 0, padding: 0 };
  rtcpReceived = 0;
  /** retransmissions received on the RTX payload type that carried a packet (no padding-only probe) */
  rtxReceived = 0;
  /** the transport feedback, where transport-cc was negotiated */
  readonly twcc: TwccSender | null;
  private readonly srtp: SrtpUnprotect;
  private readonly srtcp: SrtcpUnprotect;
  /** who unprotects: OpenSSL in place (the arena path where it loads) or node:crypto */
  readonly srtpBackend: SrtpBackend;
  private readonly tagLength: number;
  /** 1: the video track's payload type, 2: the audio track's */
  private readonly pt = new Uint8Array(128);
  /** the audio track's next stage, and the audio packet handed on */
  private readonly audioNext: PacketStage | null;
  private readonly audioPacket = new ReceivedPacket();
  private readonly absId: number;
  private readonly twccId: number;
  private readonly ddId: number;
  private readonly onDescriptor: (seq: number, b: Uint8Array, off: number, len: number) => void;
  private readonly onRtxPacket: () => void;
  private readonly next: PacketStage;
  /** the packet handed on, rewritten for each */
  private readonly packet = new ReceivedPacket();
  private readonly stats: ReceptionStats;
  private readonly nack: NackSender;
  private readonly sendRtcp: (rtcp: Buffer) => void;
  private readonly reports: ReceiverReports;
  private closed = false;
  private ssrc = -1;
  private rtxSsrc = -1;

  constructor(opts: OwnSrtpOptions) {
    const rx = opts.inPlace
      ? srtpReceivers(opts.profile, opts.remoteMasterKey, opts.remoteMasterSalt)
      : srtpReceivers(opts.profile, opts.remoteMasterKey, opts.remoteMasterSalt, {
          ok: false,
          reason: "the lean path",
        });
    this.srtp = rx.rtp;
    this.srtcp = rx.rtcp;
    this.srtpBackend = rx.backend;
    this.tagLength = this.srtp.tagLength;
    for (const p of opts.payloadTypes) if (p >= 0 && p < 128) this.pt[p] = 1;
    for (const p of opts.rtxPayloadTypes ?? []) if (p >= 0 && p < 128) this.pt[p] = 3;
    for (const p of opts.audio?.payloadTypes ?? []) if (p >= 0 && p < 128 && this.pt[p] === 0) this.pt[p] = 2;
    this.audioNext = opts.audio?.next ?? null;
    this.absId = opts.absId;
    this.twccId = opts.twccId ?? 0;
    this.ddId = opts.onDescriptor !== undefined ? (opts.ddId ?? 0) : 0;
    this.onDescriptor = opts.onDescriptor ?? noop;
    this.twcc =
      this.twccId !== 0
        ? new TwccSender(opts.sendRtcp, opts.senderSsrc, opts.onTransportFeedback ?? noop, opts.timerDone)
        : null;
    this.onRtxPacket = opts.onRtx ?? noop;
    this.next = opts.next;
    this.stats = new ReceptionStats(opts.clockRate);
    this.sendRtcp = opts.sendRtcp;
    this.reports = new ReceiverReports(this.stats, opts.sendRtcp, opts.senderSsrc, {
      minMs: opts.rrMinMs,
      maxMs: opts.rrMaxMs,
      timerDone: opts.timerDone,
      browser: opts.viewerProfile !== "minimal",
    });
    this.nack = new NackSender(
      new NackGenerator(),
      opts.sendRtcp,
      opts.senderSsrc,
      opts.onNack,
      opts.keyframes ?? none,
      opts.timerDone,
      this.reports.head,
    );
  }

  /** Receiver reports written, periodic and compound heads alike. */
  get reportsSent(): number {
    return this.reports.sent;
  }

  /** Periodic receiver reports sent, each a compound packet of its own (no NACK or PLI after it). */
  get reportsAlone(): number {
    return this.reports.alone;
  }

  /** The rollover counter of the media SSRC (0 before any packet). */
  get maxRoc(): number {
    return this.ssrc === -1 ? 0 : Math.max(0, this.srtp.rocOf(this.ssrc));
  }

  /** SRTP/SRTCP counters of rejected packets. */
  get srtpCounters(): { rtp: SrtpUnprotect["counters"]; rtcp: SrtcpUnprotect["counters"] } {
    return { rtp: this.srtp.counters, rtcp: this.srtcp.counters };
  }

  /** Every media datagram of the ICE connection (its first `length` bytes), with its arrival instant. */
  receive(data: Buffer, length: number, arrivalNs: number): void {
    if (this.closed || !isMedia(data)) return;
    if (isRtcp(data)) {
      // rare (a report a second): its own view when the datagram is a slot of the arena
      this.onRtcp(length === data.length ? data : data.subarray(0, length), arrivalNs);
      return;
    }
    const end = length - this.tagLength;
    const h = rtpHeaderLength(data, end);
    if (h < 0) {
      this.dropped.malformed++;
      return;
    }
    const kind = this.pt[data[1]! & 0x7f];
    if (kind === 0) {
      this.dropped.payloadType++;
      return;
    }
    if (kind === 2) {
      this.onAudio(data, h, length, arrivalNs);
      return;
    }
    if (kind === 3) {
      this.onRtx(data, h, length, arrivalNs);
      return;
    }
    const ssrc = rtpSsrc(data);
    if (this.ssrc !== ssrc && this.ssrc !== -1) {
      this.dropped.foreignSsrc++;
      return;
    }
    const repeats = this.srtp.counters.repeats;
    let payload: Buffer | null = this.srtp.unprotect(data, h, length);
    if (payload === null) {
      if (this.srtp.counters.repeats !== repeats) {
        // the same packet again (a retransmission that raced a NACK retry): werift's path, which
        // has no replay window, hands it on and RTP statistics count a duplicate; so do we
        this.next.receive(
          this.packet.set(rtpSeq(data), rtpTimestamp(data), rtpMarker(data), NO_BYTES, arrivalNs, -1),
        );
        return;
      }
      this.dropped.srtp++;
      return;
    }
    this.ssrc = ssrc;
    if (this.twcc !== null) this.transportSeq(ssrc, data, h, arrivalNs);
    payload = this.unpad(data, payload);
    if (payload === null) return;
    this.deliver(ssrc, rtpSeq(data), data, h, payload, arrivalNs);
  }

  /** A video packet's fields to the statistics, NACK and the next stage (`seq`: the original's). */
  private deliver(
    ssrc: number,
    seq: number,
    data: Buffer,
    h: number,
    payload: Buffer,
    arrivalNs: number,
  ): void {
    const ts = rtpTimestamp(data);
    let captureWallNs = -1;
    if (this.absId !== 0) {
      const found = findExtension(data, h, this.absId);
      if (found >= 0 && extensionLength(found) >= 8) {
        captureWallNs = absCaptureAtToUnixNs(data, extensionOffset(found));
      }
    }
    if (this.ddId !== 0) {
      const dd = findExtension(data, h, this.ddId);
      if (dd >= 0) this.onDescriptor(seq, data, extensionOffset(dd), extensionLength(dd));
    }
    this.stats.onPacket(ssrc, seq, ts, arrivalNs);
    this.nack.onPacket(ssrc, seq, arrivalNs);
    this.next.receive(this.packet.set(seq, ts, rtpMarker(data), payload, arrivalNs, captureWallNs));
    this.nack.afterPacket(arrivalNs);
  }

  /** The packet's transport-wide sequence number, where it carries one, to the transport feedback. */
  private transportSeq(ssrc: number, data: Buffer, h: number, arrivalNs: number): void {
    const t = this.twcc;
    const found = findExtension(data, h, this.twccId);
    if (t === null || found < 0 || extensionLength(found) < 2) return;
    const at = extensionOffset(found);
    t.mediaSsrc = ssrc; // as libwebrtc: the SSRC of the last packet recorded
    t.onPacket((data[at]! << 8) | data[at + 1]!, arrivalNs);
  }

  /**
   * A retransmission (RFC 4588): unprotected under its own SSRC, its transport-wide number
   * recorded, then counted and its original sequence number (the payload's first two bytes) and
   * the payload after them delivered as the media packet would have been. A padding-only one (a
   * sender's probe) carries no packet.
   */
  private onRtx(data: Buffer, h: number, length: number, arrivalNs: number): void {
    const ssrc = rtpSsrc(data);
    if (this.rtxSsrc !== ssrc && this.rtxSsrc !== -1) {
      this.dropped.foreignSsrc++;
      return;
    }
    const clear = this.srtp.unprotect(data, h, length);
    if (clear === null) {
      this.dropped.srtp++;
      return;
    }
    this.rtxSsrc = ssrc;
    if (this.twcc !== null) this.transportSeq(ssrc, data, h, arrivalNs);
    const payload = this.unpad(data, clear);
    if (payload === null || payload.length < 2 || this.ssrc === -1) return;
    this.rtxReceived++;
    this.onRtxPacket();
    this.deliver(this.ssrc, (payload[0]! << 8) | payload[1]!, data, h, payload.subarray(2), arrivalNs);
  }

  /** The payload without its RTP padding; null (counted) when the padding is malformed. */
  private unpad(data: Buffer, payload: Buffer): Buffer | null {
    if (!rtpHasPadding(data)) return payload;
    const pad = payload.length > 0 ? payload[payload.length - 1]! : 0;
    if (pad === 0 || pad > payload.length) {
      this.dropped.padding++;
      return null;
    }
    return payload.subarray(0, payload.length - pad);
  }

  /** An audio packet: unprotected (its own SSRC's index state), to the audio track's next stage. */
  private onAudio(data: Buffer, h: number, length: number, arrivalNs: number): void {
    const clear = this.srtp.unprotect(data, h, length);
    if (clear === null) {
      this.dropped.srtp++;
      return;
    }
    const payload = this.unpad(data, clear);
    if (payload !== null)
      this.audioNext?.receive(
        this.audioPacket.set(rtpSeq(data), rtpTimestamp(data), rtpMarker(data), payload, arrivalNs, -1),
      );
  }

  private onRtcp(data: Buffer, nowNs: number): void {
    const rtcp = this.srtcp.unprotect(data);
    if (rtcp === null) return;
    this.rtcpReceived++;
    const lsr = senderReportLsr(rtcp);
    if (lsr >= 0) this.stats.onSenderReport(lsr, nowNs);
  }

  close(): void {
    this.closed = true;
    this.nack.close();
    this.twcc?.close();
    this.reports.close();
  }
}
