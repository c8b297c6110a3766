// One viewer's render model and keyframe requests together (docs/definitions.md#viewer-experience),
// as the viewer pipeline drives them: every packet (its instant, whether it carries part of a
// keyframe), every frame the reassembler completes, and the PLIs the receive path sends. Pure: the
// receive path's timer calls pliDue() on time, the pipeline everything else.
import { idrPartH264 } from "../codec/h264.ts";
import { keyframeStartVp8 } from "../codec/vp8.ts";
import type { EncodedHistogram, RenderCounters } from "../types.ts";
import { type KeyframeRequestMode, KeyframeRequestRule } from "./keyframe-request-rule.ts";
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

  /** `codec`: "vp8", "h264" or another name (then only "join" requests, and no render figures). */
  constructor(
    codec: string,
    mode: KeyframeRequestMode,
    onFreeze: ((startNs: number, endNs: number) => void) | null,
  ) {
    const read = codec === "vp8" || codec === "h264";
    this.model = read ? new RenderModel(codec, onFreeze) : null;
    const model = this.model;
    this.requests = new KeyframeRequestRule(read ? mode : "join", () => model?.clock.inactive());
    this.keyPart = codec === "vp8" ? keyframeStartVp8 : codec === "h264" ? idrPartH264 : notKey;
  }

  /** One packet at `ns` (before its frames complete); `joined`: the first complete keyframe is in. */
  packet(ns: number, payload: Uint8Array, joined: boolean): void {
    const r = this.requests;
    if (r.poll(ns)) this.wanted = true;
    if (r.packet(ns, this.keyPart(payload), joined)) this.wanted = true;
  }

  /** One frame the reassembler completed. */
  frame(f: RenderFrame): void {
    const m = this.model;
    if (m === null) return;
    if (this.frames++ === 0 && !f.keyframe) this.requests.firstFrameNotKey();
    m.frame(f);
    const last = m.clock.lastNs;
    if (last !== this.lastShownNs) {
      this.lastShownNs = last;
      this.requests.shown(last);
    }
  }

  /** Runs the request rule up to `ns`: whether a PLI goes out now. */
  pliDue(ns: number): boolean {
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
