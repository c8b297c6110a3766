// Drives a NackGenerator with the monotonic clock and one timer per viewer, writing each NACK
// message as RTCP (every receive path). The first NACK of a gap goes out synchronously, from
// the packet that revealed it; re-requests go out on the generator's 20 ms tick, every sequence
// number due at a tick in one message. It also sends the viewer's keyframe requests (PLI) when the viewer's
// render model asks for one (docs/definitions.md#keyframe-requests): after each packet, and from
// the same timer when the rule's next timeout is due.
import { monoNs } from "../../core/clock/clock.ts";
import type { ViewerRender } from "../../core/render/viewer-render.ts";
import type { NackGenerator } from "./nack.ts";
import { serializeNack, serializePli } from "./rtcp-out.ts";

/** What decides the viewer's keyframe requests (the pipeline's render model). */
export type KeyframeSource = Pick<ViewerRender, "pliDue" | "pliNextNs" | "pliSent" | "nackOverflow">;

export class NackSender {
  private readonly gen: NackGenerator;
  private readonly send: (rtcp: Buffer) => void;
  private readonly senderSsrc: number;
  private readonly onMessage: () => void;
  private mediaSsrc = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDueNs = -1;
  private closed = false;
  private readonly keyframes: () => KeyframeSource | null;
  private readonly timerDone: () => void;
  private overflows = 0;
  private readonly report: () => Buffer | null;
  private readonly emit = (seqs: readonly number[]): void => {
    this.send(this.compound(serializeNack(this.senderSsrc, this.mediaSsrc, seqs)));
    this.onMessage();
  };

  /**
   * `keyframes`: the viewer's request rule, once its pipeline exists; `timerDone`: told at the end
   * of each timer callback (the thread's intake marks it, intake.ts); `report`: the receiver report
   * (and on the minimal profile an SDES) that leads each feedback message in one compound packet
   * (RFC 3550 section 6.1; libwebrtc without rtcp-rsize leads with the report: receiver-reports.ts,
   * docs/definitions.md#nacks), or null for a bare message
   */
  constructor(
    gen: NackGenerator,
    send: (rtcp: Buffer) => void,
    senderSsrc: number,
    onMessage: () => void,
    keyframes: () => KeyframeSource | null,
    timerDone: () => void = () => {},
    report: () => Buffer | null = () => null,
  ) {
    this.gen = gen;
    this.report = report;
    this.timerDone = timerDone;
    this.keyframes = keyframes;
    this.send = send;
    this.senderSsrc = senderSsrc;
    this.onMessage = onMessage;
  }

  /**
   * One received packet of `ssrc`, before the pipeline takes it. `nowNs` is its arrival (a kernel
   * stamp on the arena path); a gap's first NACK is stamped with the instant it is written, as
   * libwebrtc's NACK module takes its clock when it processes the packet: stamped with the arrival,
   * a thread that read the packet late would ask again early (docs/definitions.md#nacks).
   */
  onPacket(ssrc: number, seq: number, nowNs: number): void {
    this.mediaSsrc = ssrc;
    const opened = this.gen.onPacket(seq, nowNs);
    if (this.gen.overflows !== this.overflows) {
      this.overflows = this.gen.overflows;
      this.keyframes()?.nackOverflow();
    }
    if (!opened || this.closed) return;
    this.gen.pollNew(monoNs(), this.emit);
    this.arm();
  }

  /** After the pipeline took the packet: a keyframe request it made goes out now. */
  afterPacket(nowNs: number): void {
    if (this.closed) return;
    this.pli(nowNs);
    this.arm();
  }

  private pli(nowNs: number): void {
    const k = this.keyframes();
    if (k === null || !k.pliDue(nowNs)) return;
    this.send(this.compound(serializePli(this.senderSsrc, this.mediaSsrc)));
    k.pliSent(nowNs);
  }

  private compound(feedback: Buffer): Buffer {
    const head = this.report();
    return head === null ? feedback : Buffer.concat([head, feedback]);
  }

  /** The earliest instant the NACK generator or the keyframe rule has something to do; −1: none. */
  private dueNs(): number {
    const nack = this.gen.nextDueNs();
    const pli = this.keyframes()?.pliNextNs() ?? -1;
    return nack < 0 ? pli : pli < 0 ? nack : Math.min(nack, pli);
  }

  private arm(): void {
    const due = this.dueNs();
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
    const now = monoNs();
    this.gen.poll(now, this.emit);
    this.pli(now);
    this.arm();
    this.timerDone();
  };

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
