// werift's SRTP and RTP stage of a viewer's chain, on werift's receive path (chain.ts): each media
// datagram, stamped already, goes to werift's own dispatch (werift's SRTP, RTP parsing and
// receiver reports), which decrypts it and emits the packet on the track synchronously, inside
// `receive`; the packet event carries no instant, so the stage keeps the datagram's arrival
// instant for the length of that call and hands it on with the packet's fields to our NACK
// generator (as on the lean paths: werift's own is silenced) and the next stage. Made with the
// transceiver (werift hands its tracks out before SRTP starts), bound to werift's dispatch and
// its next stage when the chain folds; its close closes our NACK and transport feedback. werift
// restores a retransmission on the RTX payload type itself (RFC 4588) before it emits it; the
// stage counts one by the datagram's payload type, and records each packet's transport-wide
// sequence number for our transport feedback (werift's own is silenced too).
import { monoNs } from "../../core/clock/clock.ts";
import { absCaptureToUnixNs } from "../../core/rtp/abs-capture-time.ts";
import { isRtcp } from "../../core/wire/first-byte.ts";
import { ABS_CAPTURE_TIME_URI, DEPENDENCY_DESCRIPTOR_URI, TRANSPORT_CC_URI } from "../../net/rtc.ts";
import type { MediaStreamTrack } from "../../net/werift/api.ts";
import type { NackSender } from "./nack-sender.ts";
import { type PacketStage, ReceivedPacket, type ReceiveStage } from "./stages.ts";
import type { TwccSender } from "./twcc-sender.ts";

export class WeriftSrtpStage implements ReceiveStage {
  private dispatch: ((data: Buffer) => void) | null = null;
  private next: PacketStage | null = null;
  /** the packet handed on, rewritten for each */
  private readonly packet = new ReceivedPacket();
  /** the arrival instant of the datagram werift is processing now, −1 outside `receive` */
  private arrivalNs = -1;
  /** whether the datagram werift is processing now is on an RTX payload type */
  private rtxNow = false;
  private readonly nack: NackSender;
  private readonly twcc: TwccSender;
  /** whether transport-cc was negotiated (known with the video track) */
  private twccOn = false;
  /** 1: an RTX payload type */
  private readonly rtxPt = new Uint8Array(128);
  private closed = false;
  /** retransmissions werift delivered from the RTX payload type */
  rtxReceived = 0;

  private readonly onRtx: () => void;

  constructor(nack: NackSender, twcc: TwccSender, onRtx: () => void) {
    this.onRtx = onRtx;
    this.nack = nack;
    this.twcc = twcc;
  }

  /**
   * Once its SRTP started: werift's dispatch of a datagram (null: werift reads its media itself)
   * and the stage its packets go to; returns this stage.
   */
  bind(dispatch: ((data: Buffer) => void) | null, next: PacketStage): this {
    this.dispatch = dispatch;
    this.next = next;
    return this;
  }

  receive(data: Buffer, length: number, arrivalNs: number): void {
    const exec = this.dispatch;
    if (exec === null) return;
    this.arrivalNs = arrivalNs;
    // the payload type is in the clear
    this.rtxNow = !isRtcp(data) && this.rtxPt[data[1]! & 0x7f] === 1;
    try {
      exec(length === data.length ? data : data.subarray(0, length));
    } finally {
      this.arrivalNs = -1;
      this.rtxNow = false;
    }
  }

  /** The instant of the packet werift emits now: its datagram's, or now where werift emitted on its own. */
  private arrival(): number {
    return this.arrivalNs >= 0 ? this.arrivalNs : monoNs();
  }

  /**
   * The video track's packets to the NACK generator and the sink; what was negotiated is known
   * with the track: transport-cc, the RTX payload types, and the dependency descriptor (its
   * packets' descriptors to `onDescriptor`, null where it was not negotiated).
   */
  takeVideo(
    track: MediaStreamTrack,
    transportCc: boolean,
    rtxPayloadTypes: readonly number[],
    onDescriptor: ((seq: number, b: Uint8Array, off: number, len: number) => void) | null = null,
  ): void {
    this.twccOn = transportCc;
    for (const p of rtxPayloadTypes) if (p >= 0 && p < 128) this.rtxPt[p] = 1;
    track.onReceiveRtp.subscribe((rtp, ext) => {
      const arrivalNs = this.arrival();
      const abs = ext?.[ABS_CAPTURE_TIME_URI];
      const captureWallNs = Buffer.isBuffer(abs) ? absCaptureToUnixNs(abs) : -1;
      const h = rtp.header;
      const twcc = this.twcc;
      const tseq = ext?.[TRANSPORT_CC_URI];
      if (this.twccOn && typeof tseq === "number") {
        twcc.mediaSsrc = h.ssrc;
        twcc.onPacket(tseq, arrivalNs);
      }
      if (this.rtxNow) {
        this.rtxReceived++;
        this.onRtx();
      }
      this.nack.onPacket(h.ssrc, h.sequenceNumber, arrivalNs);
      const dd = onDescriptor !== null ? ext?.[DEPENDENCY_DESCRIPTOR_URI] : undefined;
      if (Buffer.isBuffer(dd)) onDescriptor!(h.sequenceNumber, dd, 0, dd.length);
      const p = this.packet.set(
        h.sequenceNumber,
        h.timestamp,
        h.marker,
        rtp.payload,
        arrivalNs,
        captureWallNs,
      );
      this.next?.receive(p);
      this.nack.afterPacket(arrivalNs);
    });
  }

  /** The audio track's packets to `next`, its last stage (no NACK for audio on any path). */
  takeAudio(track: MediaStreamTrack, next: PacketStage): void {
    const p = new ReceivedPacket();
    track.onReceiveRtp.subscribe((rtp) => {
      const h = rtp.header;
      next.receive(p.set(h.sequenceNumber, h.timestamp, h.marker, rtp.payload, this.arrival(), -1));
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.nack.close();
    this.twcc.close();
  }
}
