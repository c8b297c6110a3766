// What one viewer would have seen (docs/definitions.md#viewer-experience): for every frame the
// reassembler completes, whether a libwebrtc receiver would show it, and when. Its reference finder,
// chosen per frame (finder-choice.ts, docs/definitions.md#decodable-frames): VP8 with temporal
// layers, libwebrtc's VP8 finder (vp8-ref-finder.ts); VP8 with a PictureID references PictureID − 1
// (frame-id); H.264 and VP8 without one continue the last packet of the last frame passed on
// (seq-num); a frame whose first packet had a dependency descriptor, the generic finder
// (frame-descriptors.ts); a frame that needs another finder than the last starts a new one. A
// keyframe opens a new chain; a delta frame whose reference was not decodable waits in a stash until
// it is, and is dropped (not decodable) when a later keyframe is decodable. A frame at or before the
// last decodable one is late. A decodable frame goes to the playout stage (playout.ts,
// docs/definitions.md#playout), which shows it at its render time, or skips it when it is late and a
// later one waits; the freeze clock counts the show instants. Pure; no allocation per frame.
import { vp8PictureId } from "../codec/vp8.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { RenderCounters } from "../types.ts";
import { type FinderKind, finderOf } from "./finder-choice.ts";
import { FrameDescriptors } from "./frame-descriptors.ts";
import { FrameStash } from "./frame-stash.ts";
import { FreezeClock } from "./freeze-clock.ts";
import { PaddingSeqs } from "./padding-seqs.ts";
import { Playout } from "./playout.ts";
import type { PlayoutDelay } from "./playout-params.ts";
import type { RenderFrame } from "./render-frame.ts";
import { PictureIds, Vp8RefFinder, vp8Layers } from "./vp8-ref-finder.ts";

export { emptyRender, type RenderFrame } from "./render-frame.ts";

/** PLIs awaiting a keyframe, at most (older ones are answered by the same keyframe anyway). */
const PLI_SLOTS = 32;

export class RenderModel {
  readonly clock: FreezeClock;
  readonly playout: Playout;
  readonly recoveryHist = new DelayHistogram();
  readonly pliKeyframeHist = new DelayHistogram();
  private readonly codec: "vp8" | "h264";
  /** the finder of the first frame (the one reported) and of the last */
  private firstFinder: RenderCounters["finder"] = "";
  private finder: FinderKind | "" = "";
  private shown = 0;
  private notDecodable = 0;
  private late = 0;
  private recoveries = 0;
  private plisSent = 0;
  private plisAnswered = 0;
  /** the id the last decodable frame provides (frame-id: its id; seq-num: its last packet); −1 before */
  private lastId = -1;
  /** the RTP timestamp of the last decodable frame */
  private lastTs = 0;
  /** frame-id and seq-num: frames waiting for their reference */
  private readonly stashed = new FrameStash();
  private readonly pads = new PaddingSeqs();
  private readonly pids = new PictureIds();
  /** VP8 with temporal layers: libwebrtc's VP8 finder (made for such a stream), the instant it is given */
  private vp8: Vp8RefFinder | null = null;
  /** dependency descriptors and the generic finder, from the first descriptor given */
  private dd: FrameDescriptors | null = null;
  private nowNs = 0;
  /** the chain broke (a frame could not be shown) at this instant, ns; −1 while unbroken */
  private brokenNs = -1;
  /** the playout's frames taken when those decodable before the break are gone */
  private brokenTaken = 0;
  private readonly plis = new Float64Array(PLI_SLOTS);
  private pliCount = 0;

  constructor(
    codec: "vp8" | "h264",
    onFreeze: ((startNs: number, endNs: number) => void) | null = null,
    delay?: PlayoutDelay,
  ) {
    this.codec = codec;
    this.clock = new FreezeClock(onFreeze);
    this.playout = new Playout((key) => this.onShown(key), delay);
  }

  /** A keyframe request (PLI) went out at `ns`. */
  pliSent(ns: number): void {
    this.plisSent++;
    if (this.pliCount < PLI_SLOTS) this.plis[this.pliCount++] = ns;
  }

  /** Whether a frame has been shown. */
  get started(): boolean {
    return this.shown > 0;
  }

  /**
   * One frame the reassembler completed: `bytes` its size (0: unknown, the jitter estimate leaves it
   * out), `retransmitted` whether a retransmission delayed it (then it stays out of the timing).
   */
  frame(f: RenderFrame, bytes = 0, retransmitted = false): void {
    // the descriptor is read once a frame: its PictureID and layer fields choose the finder
    const generic = this.dd?.has(f.lo) === true;
    const pid = this.codec === "vp8" && !generic ? vp8PictureId(f.head) : -1;
    const layers = pid >= 0 ? vp8Layers(f.head) : -1;
    const kind = generic ? "generic" : finderOf(pid, layers);
    if (kind !== this.finder) this.switchTo(kind);
    if (kind === "vp8" || generic) {
      const id = generic ? -1 : this.pids.unwrap(pid);
      this.vp8Frame(f, id, layers, retransmitted ? -bytes - 1 : bytes, retransmitted);
      return;
    }
    let start: number;
    let end: number;
    if (kind === "frame-id") {
      start = this.pids.unwrap(pid);
      end = start;
    } else {
      start = f.lo;
      end = f.hi;
    }
    const at = f.completedNs;
    const p = this.playout;
    if (this.lastId >= 0 && end <= this.lastId) {
      // FrameBuffer3 refuses a frame at or before the last one passed on, except a keyframe with a
      // newer RTP timestamp: the ids jumped back (a 7-bit PictureID wrapped, a sender restarted),
      // and the buffer is cleared for it (its legacy frame-id jump behaviour)
      if (!f.keyframe || ((f.timestamp - this.lastTs) | 0) <= 0) {
        this.late++;
        return;
      }
      this.notDecodable += this.stashed.clear();
      this.lastId = -1;
    }
    // the playout reads the frame's instants and timestamp from its fields (playout.ts: inNs)
    p.inNs = at;
    p.inTs = f.timestamp;
    p.inRecvNs = at;
    p.completedIn(retransmitted);
    const b = retransmitted ? -bytes - 1 : bytes;
    if (f.keyframe) {
      if (this.stashed.count > 0) this.notDecodable += this.stashed.dropBefore(start);
      this.decodable(end, true, b);
    } else if (this.lastId >= 0 && start === this.lastId + 1) {
      this.decodable(end, false, b);
    } else {
      this.stash(start, end, at, f.timestamp, b);
      return;
    }
    if (this.stashed.count > 0) this.cascade(at);
    p.inNs = at;
    p.releaseIn();
  }

  /**
   * A padding-only packet (no payload) with 16-bit sequence number `seq` arrived at `ns`: for the
   * seq-num finder it continues the chain (frames waiting behind it may become decodable).
   */
  padding(seq: number, ns: number): void {
    // libwebrtc passes padding to its seq-num finder only (rtp_frame_reference_finder.cc): before
    // the first frame it has no finder yet and drops it, as it does under any other finder
    if (this.finder !== "seq-num") return;
    this.pads.add(seq, ns);
    if (this.lastId < 0) return;
    const id = this.pads.extend(this.lastId, ns);
    if (id === this.lastId) return;
    this.lastId = id;
    if (this.stashed.count > 0) this.cascade(ns);
    this.playout.release(ns);
  }

  /** Packet `seq` (16 bits) had a dependency descriptor at b[off, off + len) (it was negotiated). */
  descriptor(seq: number, b: Uint8Array, off: number, len: number): void {
    this.dd ??= new FrameDescriptors((id, key, recvNs, ts, c) => this.vp8HandOff(id, key, recvNs, ts, c));
    this.dd.packet(seq, b, off, len);
  }

  /** Runs the playout up to `ns` (frames due by then are shown). */
  advance(ns: number): void {
    this.playout.advance(ns);
  }

  /** The viewer ended at `endNs`: frames still waiting were never shown. */
  finish(endNs: number): RenderCounters {
    this.playout.advance(endNs);
    this.notDecodable += this.stashed.clear() + (this.vp8 === null ? 0 : this.vp8.waiting + this.vp8.dropped);
    if (this.dd !== null) this.notDecodable += this.dd.lost;
    return {
      finder: this.firstFinder,
      framesShown: this.shown,
      framesNotDecodable: this.notDecodable,
      framesLate: this.late + this.playout.skipped,
      ...this.clock.figures(endNs),
      recoveries: this.recoveries,
      plisSent: this.plisSent,
      plisAnswered: this.plisAnswered,
    };
  }

  /**
   * A frame is decodable at the playout's inNs (its RTP timestamp inTs, received at inRecvNs: fields,
   * not arguments, issue 40): the playout shows it (or skips it) later.
   */
  private decodable(end: number, key: boolean, b: number): void {
    const p = this.playout;
    this.lastTs = p.inTs;
    // padding that came after the frame's last packet continues the chain (seq-num)
    if (this.finder === "seq-num") {
      this.pads.inNs = p.inNs;
      this.lastId = this.pads.extendIn(end);
    } else this.lastId = end;
    const retransmitted = b < 0;
    p.readyIn(retransmitted ? -b - 1 : b, retransmitted, key);
  }

  /** The playout showed a frame (at its shownNs). */
  private onShown(keyframe: boolean): void {
    const at = this.playout.shownNs;
    this.shown++;
    this.clock.inNs = at;
    this.clock.shownIn();
    // the first frame decodable after the break ends it (those decodable before it may show later)
    if (this.brokenNs >= 0 && this.playout.taken > this.brokenTaken) {
      this.recoveries++;
      this.recoveryHist.recordNs(at - this.brokenNs);
      this.brokenNs = -1;
    }
    if (keyframe && this.pliCount > 0) {
      for (let i = 0; i < this.pliCount; i++) this.pliKeyframeHist.recordNs(at - this.plis[i]!);
      this.plisAnswered += this.pliCount;
      this.pliCount = 0;
    }
  }

  /** Shows every stashed frame that now continues the chain, at the instant that unlocked it. */
  private cascade(at: number): void {
    const s = this.stashed;
    const p = this.playout;
    for (let slot = s.take(this.lastId + 1); slot >= 0; slot = s.take(this.lastId + 1)) {
      p.inNs = at;
      p.inTs = s.ts[slot]!;
      p.inRecvNs = s.recv[slot]!;
      this.decodable(s.end[slot]!, false, s.bytes[slot]!);
    }
  }

  /** The chain is broken at `at` once a frame after the first shown one cannot be shown. */
  private breakAt(at: number): void {
    if (this.shown + this.playout.waiting > 0 && this.brokenNs < 0) {
      this.brokenNs = at;
      this.brokenTaken = this.playout.taken + this.playout.waiting;
    }
  }

  /** A frame to the VP8 finder (`id` its unwrapped PictureID) or the generic one (−1); `b` < 0: rtx. */
  private vp8Frame(f: RenderFrame, id: number, layers: number, b: number, retransmitted: boolean): void {
    const at = f.completedNs;
    this.nowNs = at;
    const p = this.playout;
    p.inNs = at;
    p.inTs = f.timestamp;
    if (id >= 0 || !this.dd!.unreadable) p.completedIn(retransmitted);
    this.vp8 ??= new Vp8RefFinder((id, key, recvNs, ts, c) => this.vp8HandOff(id, key, recvNs, ts, c));
    const fi =
      id < 0
        ? this.dd!.frame(at, f.timestamp, b)
        : this.vp8.frame(id, layers, f.keyframe, at, f.timestamp, b);
    if (fi) this.breakAt(at);
    p.inNs = at;
    p.releaseIn();
  }

  /**
   * The frame needs another finder than the last: libwebrtc makes a new one
   * (rtp_frame_reference_finder.cc), so what the old one held is gone — the frames waiting for their
   * reference are given up (not decodable), and so is the padding kept. The frame buffer stays: ids
   * of the two PictureID finders continue each other, but sequence numbers, PictureIDs and generic
   * frame ids do not, so a switch between them restarts the chain at the next keyframe.
   */
  private switchTo(kind: FinderKind): void {
    if (this.finder === "") this.firstFinder = kind;
    else {
      this.notDecodable += this.stashed.clear();
      if (this.vp8 !== null) this.notDecodable += this.vp8.waiting + this.vp8.dropped;
      this.vp8 = null;
      this.pads.clear();
      if (![kind, this.finder].every((k) => k === "vp8" || k === "frame-id")) this.lastId = -1;
    }
    this.finder = kind;
  }

  /** The VP8 finder handed a frame on: decodable now, unless a later one was (late). */
  private vp8HandOff(id: number, key: boolean, recvNs: number, ts: number, b: number): void {
    if (this.lastId >= 0 && id <= this.lastId) this.late++;
    else {
      const p = this.playout;
      p.inNs = this.nowNs;
      p.inTs = ts;
      p.inRecvNs = recvNs;
      this.decodable(id, key, b);
    }
  }

  private stash(start: number, end: number, at: number, ts: number, b: number): void {
    this.breakAt(at);
    // a frame the stash's size away is given up for it
    this.notDecodable += this.stashed.put(start, end, ts, at, b);
  }
}
