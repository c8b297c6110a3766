// One viewer's render model and keyframe requests together (docs/definitions.md#viewer-experience),
// as the viewer pipeline drives them: every packet (its instant, whether it carries part of a
// keyframe; its sequence number and timestamp for the playout's frame sizes and retransmissions),
// every frame the reassembler completes (and the H.264 keyframes libwebrtc's packet buffer hands out
// without their leading packets, packet-buffer.ts), and the PLIs the receive path sends. Pure: the
// receive path's timer calls pliDue() on time, the pipeline everything else.
import { idrPartH264 } from "../codec/h264.ts";
import { keyframeStartVp8 } from "../codec/vp8.ts";
import type { EncodedHistogram, RenderCounters } from "../types.ts";
import { type KeyframeRequestMode, KeyframeRequestRule } from "./keyframe-request-rule.ts";
import { PacketBuffer } from "./packet-buffer.ts";
import { emptyRender, type RenderFrame, RenderModel } from "./render-model.ts";

export interface RenderResult {
  render: RenderCounters;
  recoveryHist: EncodedHistogram;
  pliKeyframeHist: EncodedHistogram;
}

const EMPTY_HIST: EncodedHistogram = { hdr: "", n: 0, sumNs: 0, minNs: 0, maxNs: 0 };

export class ViewerRender {
  /** null: a codec the model does not read (no frames, PLIs by the join rule) */
  readonly model: RenderModel | null;
  readonly requests: KeyframeRequestRule;
  private readonly keyPart: (payload: Uint8Array) => boolean;
  private wanted = false;
  private frames = 0;
  private lastShownNs = -1;
  private plisSent = 0;
  // the playout's frame sizes: payload bytes of the timestamp arriving in order; whether the last
  // packet came in order (a frame completed by one that did not was delayed by a retransmission)
  private maxSeq = -1;
  private inOrder = true;
  private sizeTs = -1;
  private sizeBytes = 0;
  /** sequence numbers (by their low 10 bits) of packets that carried a marker bit; −1 none */
  private readonly marked = new Int32Array(1024).fill(-1);
  private seqKnown = false;
  /** H.264: libwebrtc's packet buffer where it hands out keyframes our reassembler does not */
  private readonly buffer: PacketBuffer | null;
  private readonly headless: RenderFrame = {
    lo: 0,
    hi: 0,
    head: new Uint8Array(0),
    keyframe: true,
    completedNs: 0,
    timestamp: 0,
  };

  /**
   * `codec`: "vp8", "h264" or another name (then only "join" requests, and no render figures);
   * `startNs`: when the viewer's receive stream started (its WHEP POST; −1 unknown).
   */
  constructor(
    codec: string,
    mode: KeyframeRequestMode,
    onFreeze: ((startNs: number, endNs: number) => void) | null,
    startNs = -1,
  ) {
    const read = codec === "vp8" || codec === "h264";
    this.model = read ? new RenderModel(codec, onFreeze) : null;
    const model = this.model;
    this.requests = new KeyframeRequestRule(read ? mode : "join", () => model?.clock.inactive());
    if (startNs >= 0) this.requests.start(startNs);
    this.keyPart = codec === "vp8" ? keyframeStartVp8 : codec === "h264" ? idrPartH264 : notKey;
    this.buffer = codec === "h264" ? new PacketBuffer() : null;
  }

  /**
   * One packet at `ns` (before its frames complete); `joined`: the first complete keyframe is in;
   * `seq`, `ts` and `marker` its sequence number, timestamp and marker bit (seq −1: not known, no
   * frame sizes, padding or marker rule).
   */
  packet(ns: number, payload: Uint8Array, joined: boolean, seq = -1, ts = -1, marker = true): void {
    const m = this.model;
    if (m !== null) {
      m.advance(ns);
      this.shownTo(m.clock.lastNs);
      if (seq >= 0) {
        this.order(seq, ts, payload.length);
        this.seqKnown = true;
        if (marker) this.marked[seq & 1023] = seq;
      }
      if (seq >= 0 && payload.length === 0) m.padding(seq, ns);
      else if (seq >= 0 && this.buffer !== null) this.bufferPacket(seq, ts, marker, payload, ns);
    }
    const r = this.requests;
    if (r.poll(ns)) this.wanted = true;
    if (r.packet(ns, this.keyPart(payload), joined)) this.wanted = true;
  }

  /** One frame the reassembler completed (`late`: a packet of it came after its last one). */
  frame(f: RenderFrame & { late?: boolean }): void {
    // a frame libwebrtc's packet buffer already handed out (packet-buffer.ts): its packets are gone
    if (this.buffer !== null && f !== this.headless && this.buffer.wasReleased(f.timestamp)) return;
    const m = this.model;
    if (m === null) return;
    // libwebrtc's packet buffer ends a frame only at a packet with the marker bit: a frame whose
    // last packet has none never completes there, so it never reaches the model
    const hi = f.hi & 0xffff;
    if (this.seqKnown && this.marked[hi & 1023] !== hi) return;
    if (this.frames++ === 0 && !f.keyframe) this.requests.firstFrameNotKey();
    const retransmitted = !this.inOrder || f.late === true;
    m.frame(f, f.timestamp === this.sizeTs ? this.sizeBytes : 0, retransmitted);
    this.shownTo(m.clock.lastNs);
  }

  /** A packet through libwebrtc's packet buffer rules (packet-buffer.ts). */
  private bufferPacket(seq: number, ts: number, marker: boolean, payload: Uint8Array, ns: number): void {
    const r = this.buffer?.packet(seq, ts, marker, payload) ?? "none";
    if (r === "ask") this.requests.parameterSetsMissing();
    if (r !== "release" || this.buffer === null) return;
    const f = this.headless;
    const out = this.buffer.out;
    f.lo = out.lo;
    f.hi = out.hi;
    f.timestamp = out.timestamp; // only keyframes are released (keyframe: true)
    f.completedNs = ns;
    this.frame(f);
  }

  /** The frame buffer's wait restarts with the last frame shown. */
  private shownTo(last: number): void {
    if (last !== this.lastShownNs) {
      this.lastShownNs = last;
      this.requests.shown(last);
    }
  }

  private order(seq: number, ts: number, bytes: number): void {
    if (this.maxSeq >= 0) {
      const d = ((seq - this.maxSeq) << 16) >> 16;
      this.inOrder = d > 0;
      if (d <= 0) return;
    }
    this.maxSeq = seq;
    if (ts !== this.sizeTs) {
      this.sizeTs = ts;
      this.sizeBytes = 0;
    }
    this.sizeBytes += bytes;
  }

  /** Runs the request rule up to `ns`: whether a PLI goes out now. */
  pliDue(ns: number): boolean {
    // the playout is run by packets and at the end only: this is also called for packets that came
    // after the viewer's end, and a frame shown then would lie past it
    const due = this.requests.poll(ns) || this.wanted;
    this.wanted = false;
    return due;
  }

  /** When pliDue() next has something to do, ns; −1: nothing until a packet arrives. */
  pliNextNs(): number {
    return this.wanted ? 0 : this.requests.nextDueNs();
  }

  /** A PLI went out at `ns`. */
  pliSent(ns: number): void {
    this.plisSent++;
    this.model?.pliSent(ns);
  }

  /** The NACK list would pass 1 000 packets. */
  nackOverflow(): void {
    this.requests.nackOverflow();
  }

  /** The figures at the viewer's end `endNs`. */
  finish(endNs: number): RenderResult {
    const m = this.model;
    if (m === null) {
      return {
        render: { ...emptyRender(), plisSent: this.plisSent },
        recoveryHist: EMPTY_HIST,
        pliKeyframeHist: EMPTY_HIST,
      };
    }
    return {
      render: m.finish(endNs),
      recoveryHist: m.recoveryHist.encode(),
      pliKeyframeHist: m.pliKeyframeHist.encode(),
    };
  }
}

const notKey = (_payload: Uint8Array): boolean => false;
