// Drives a NackGenerator with the monotonic clock and one timer per viewer, writing each NACK
// message as RTCP (both receive paths). The first NACK of a gap goes out synchronously, from
// the packet that revealed it. Until the viewer has its first complete keyframe it also asks for
// one, as a browser does: a PLI on its first packet and again every PLI_REPEAT_NS while it waits
// (docs/definitions.md#keyframes-on-request).
import { monoNs } from "../../core/clock/clock.ts";
import { intake } from "../intake.ts";
import type { NackGenerator } from "./nack.ts";
import { serializeNack, serializePli } from "./rtcp-out.ts";

/** How often a viewer still waiting for its first keyframe repeats its PLI. */
export const PLI_REPEAT_NS = 500e6;

export class NackSender {
  private readonly gen: NackGenerator;
  private readonly send: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  private readonly onMessage: () => void;
  private mediaSsrc = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDueNs = -1;
  private closed = false;
  private readonly needsKeyframe: () => boolean;
  private lastPliNs = Number.NEGATIVE_INFINITY;
  private readonly emit = (seqs: readonly number[]): void => {
    this.send(serializeNack(this.senderSsrc, this.mediaSsrc, seqs));
    this.onMessage();
  };

  /** `needsKeyframe`: whether the viewer still waits for its first complete keyframe */
  constructor(
    gen: NackGenerator,
    send: (rtcp: Buffer) => void,
    senderSsrc: number,
    onMessage: () => void,
    needsKeyframe: () => boolean,
  ) {
    this.gen = gen;
    this.needsKeyframe = needsKeyframe;
    this.send = send;
    this.senderSsrc = senderSsrc;
    this.onMessage = onMessage;
  }

  /** One received packet of `ssrc`. */
  onPacket(ssrc: number, seq: number, nowNs: number): void {
    if (nowNs - this.lastPliNs >= PLI_REPEAT_NS && !this.closed && this.needsKeyframe()) {
      this.lastPliNs = nowNs;
      this.send(serializePli(this.senderSsrc, ssrc));
    }
    if (!this.gen.onPacket(seq, nowNs) || this.closed) return;
    this.mediaSsrc = ssrc;
    this.gen.poll(nowNs, this.emit);
    this.arm();
  }

  private arm(): void {
    const due = this.gen.nextDueNs();
    if (due < 0 || this.closed) return;
    if (this.timer !== null && this.timerDueNs <= due) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDueNs = due;
    this.timer = setTimeout(this.fire, Math.max(0, (due - monoNs()) / 1e6));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = null;
    this.timerDueNs = -1;
    if (this.closed) return;
    this.gen.poll(monoNs(), this.emit);
    this.arm();
    intake.mark();
  };

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
