// One viewer leg's simulcast layer at the built-in relay (docs/definitions.md#relay-layer-choice):
// which layer the leg takes, the layer asked for and not yet reached, and the rewrite that keeps
// the leg one continuous stream across a switch. A switch happens at the first packet of a keyframe
// of the asked layer; until then the leg keeps the layer it has. From the switch on, the new
// layer's sequence numbers continue from the leg's last one sent, and its timestamps from the
// leg's last one plus one frame (the step between the last two frames the leg sent), as an SFU
// rewrites them; a packet of any other layer is not the leg's.

const SEQ_MOD = 0x10000;
const TS_MOD = 0x100000000;
/** a timestamp step longer than this (1 s at 90 kHz) is a gap, not a frame */
const MAX_STEP = 90_000;

/** The sequence number and timestamp a packet goes out with on the leg. */
export interface Rewritten {
  seq: number;
  ts: number;
}

export class LayerSwitch {
  /** the rid the leg takes now */
  current: string;
  /** the rid asked for and not reached yet (no keyframe of it arrived since the ask) */
  pending: string | null = null;
  /** switches made (the asked layer's keyframe reached the leg) */
  switches = 0;
  private seqOffset = 0;
  private tsOffset = 0;
  /** the leg's last packet sent, as rewritten; -1: none yet */
  private lastSeq = -1;
  private lastTs = 0;
  /** the current layer's last timestamp as it arrived, and the step between its last two frames */
  private lastInTs = -1;
  private step = 0;
  private readonly out: Rewritten = { seq: 0, ts: 0 };

  private readonly defaultStep: number;

  /** `rid`: the layer the leg starts on; `defaultStep`: one frame's ticks before two were seen. */
  constructor(rid: string, defaultStep = 3000) {
    this.current = rid;
    this.defaultStep = defaultStep;
  }

  /**
   * Ask for `rid`. Before the leg sent anything it takes the layer at once; after, at that layer's
   * next keyframe. Returns false when the leg is already on it (nothing to do).
   */
  ask(rid: string): boolean {
    if (rid === this.current) {
      this.pending = null;
      return false;
    }
    if (this.lastSeq < 0) {
      this.current = rid;
      this.pending = null;
      return true;
    }
    this.pending = rid;
    return true;
  }

  /**
   * A packet of layer `rid` with its own `seq` and `ts`; `keyStart` when it is the first packet of
   * a keyframe. Returns the leg's sequence number and timestamp for it (one reused object), or null
   * when the packet is not for this leg.
   */
  take(rid: string, seq: number, ts: number, keyStart: boolean): Rewritten | null {
    if (rid === this.pending && keyStart) this.switchTo(rid, seq, ts);
    if (rid !== this.current) return null;
    if (this.lastInTs >= 0 && ts !== this.lastInTs) {
      const d = (ts - this.lastInTs + TS_MOD) % TS_MOD;
      if (d > 0 && d <= MAX_STEP) this.step = d;
    }
    if (this.lastInTs < 0 || newer32(ts, this.lastInTs)) this.lastInTs = ts;
    const out = this.out;
    out.seq = (seq + this.seqOffset) % SEQ_MOD;
    out.ts = (ts + this.tsOffset) % TS_MOD;
    if (this.lastSeq < 0 || newer16(out.seq, this.lastSeq)) {
      this.lastSeq = out.seq;
      this.lastTs = out.ts;
    }
    return out;
  }

  private switchTo(rid: string, seq: number, ts: number): void {
    const step = this.step > 0 ? this.step : this.defaultStep;
    this.seqOffset = (this.lastSeq + 1 - seq + SEQ_MOD) % SEQ_MOD;
    this.tsOffset = (this.lastTs + step - ts + TS_MOD) % TS_MOD;
    this.current = rid;
    this.pending = null;
    this.lastInTs = -1;
    this.switches++;
  }
}

function newer16(a: number, b: number): boolean {
  const d = (a - b + SEQ_MOD) % SEQ_MOD;
  return d !== 0 && d < SEQ_MOD / 2;
}

function newer32(a: number, b: number): boolean {
  const d = (a - b + TS_MOD) % TS_MOD;
  return d !== 0 && d < TS_MOD / 2;
}
