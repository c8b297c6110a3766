// libwebrtc's VP8 reference finder for frames with temporal layers (docs/definitions.md#decodable-frames;
// modules/video_coding/rtp_vp8_ref_finder.cc): a frame whose descriptor carries both a temporal
// index (T) and a TL0PICIDX (L). A base-layer frame references the base-layer frame before it; a
// layer-sync frame (Y) its base-layer frame; any other frame the last frame of each layer up to its
// own since its base-layer frame, and waits while a frame between them has not been handed on — so a
// lost top-layer frame costs that frame and those after it above the base layer until the next
// base-layer frame, not the GOP. Frame ids are unwrapped PictureIDs; frames that wait are retried
// after every frame handed on. Fixed arrays; no allocation per frame.

/** temporal layers at most (kMaxTemporalLayers) */
const LAYERS = 4;
/** base-layer groups kept (kMaxLayerInfo 50), in a ring of 64 */
const MAX_INFO = 50;
const INFO = 64;
/** ids not yet handed on kept (kMaxNotYetReceivedFrames 100), in a ring of 128 */
const MAX_MISSING = 100;
const MISSING = 128;
/** frames waiting at most (kMaxStashedFrames 100) */
const STASH = 100;

const HAND_OFF = 0;
const WAIT = 1;
const DROP = 2;

/**
 * A VP8 descriptor's temporal index, layer-sync bit and TL0PICIDX as one number
 * (tid | y << 2 | tl0 << 3), or −1 when it lacks the T or the L field.
 */
export function vp8Layers(p: Uint8Array): number {
  if (p.length < 2 || (p[0]! & 0x80) === 0) return -1;
  const x = p[1]!;
  if ((x & 0x40) === 0 || (x & 0x20) === 0) return -1;
  let i = 2;
  if ((x & 0x80) !== 0) i += i < p.length && (p[i]! & 0x80) !== 0 ? 2 : 1;
  if (i + 1 >= p.length) return -1;
  const t = p[i + 1]!;
  return (t >> 6) | (((t >> 5) & 1) << 2) | (p[i]! << 3);
}

/** Where handed-on frames go: their id, whether key, and the caller's three numbers. */
export type Vp8HandOff = (id: number, key: boolean, a: number, b: number, c: number) => void;

export class Vp8RefFinder {
  /** frames given up: dropped, or pushed out of a full stash */
  dropped = 0;
  private readonly handOff: Vp8HandOff;
  private lastId = -1;
  private tl0Last = -1;
  // per base-layer group (by unwrapped TL0PICIDX): the last id handed on per layer, −1 none
  private readonly infoKey = new Float64Array(INFO).fill(Number.NEGATIVE_INFINITY);
  private readonly info = new Float64Array(INFO * LAYERS);
  private readonly missing = new Float64Array(MISSING).fill(-1);
  // the stash, oldest first: id, layers (tid | y << 2), unwrapped TL0PICIDX, key, the caller's numbers
  private readonly st = new Float64Array(STASH * 7);
  private stashed = 0;

  constructor(handOff: Vp8HandOff) {
    this.handOff = handOff;
  }

  /** Frames waiting. */
  get waiting(): number {
    return this.stashed;
  }

  /**
   * One frame: `id` its unwrapped PictureID, `layers` from vp8Layers. Returns whether it waits
   * (the chain is broken there); a frame handed on, and every waiting one it frees, go to the
   * hand-off in order.
   */
  frame(id: number, layers: number, key: boolean, a: number, b: number, c: number): boolean {
    const tl0 = this.unwrapTl0(layers >>> 3);
    const d = this.manage(id, layers & 7, tl0, key);
    if (d === DROP) this.dropped++;
    if (d !== WAIT) {
      if (d === HAND_OFF) {
        this.handOff(id, key, a, b, c);
        this.retry();
      }
      return false;
    }
    if (this.stashed === STASH) {
      this.st.copyWithin(0, 7);
      this.stashed--;
      this.dropped++;
    }
    const o = this.stashed++ * 7;
    const st = this.st;
    st[o] = id;
    st[o + 1] = layers & 7;
    st[o + 2] = tl0;
    st[o + 3] = key ? 1 : 0;
    st[o + 4] = a;
    st[o + 5] = b;
    st[o + 6] = c;
    return true;
  }

  private retry(): void {
    for (let progress = true; progress; ) {
      progress = false;
      for (let i = 0; i < this.stashed; ) {
        const o = i * 7;
        const s = this.st;
        const d = this.manage(s[o]!, s[o + 1]!, s[o + 2]!, s[o + 3] === 1);
        if (d === WAIT) {
          i++;
          continue;
        }
        const id = s[o]!;
        const key = s[o + 3] === 1;
        const a = s[o + 4]!;
        const b = s[o + 5]!;
        const c = s[o + 6]!;
        s.copyWithin(o, o + 7, this.stashed * 7);
        this.stashed--;
        if (d === DROP) this.dropped++;
        else {
          this.handOff(id, key, a, b, c);
          progress = true;
        }
      }
    }
  }

  private manage(id: number, tl: number, tl0: number, key: boolean): number {
    const tid = tl & 3;
    if (this.lastId < 0) this.lastId = id;
    if (id - MAX_MISSING > this.lastId) this.lastId = id - MAX_MISSING;
    // ids skipped up to this one (itself included) are not yet handed on
    for (; this.lastId < id; ) {
      this.lastId++;
      this.missing[this.lastId % MISSING] = this.lastId;
    }
    if (key) {
      if (tid !== 0) return DROP;
      const k = this.slot(tl0, true);
      this.info.fill(-1, k * LAYERS, k * LAYERS + LAYERS);
      this.update(id, tl0, 0);
      return HAND_OFF;
    }
    const base = this.slot(tid === 0 ? tl0 - 1 : tl0, false);
    if (base < 0) return WAIT;
    const bi = base * LAYERS;
    if (tid === 0) {
      const own = this.slot(tl0, false);
      const at = own >= 0 ? own : this.slot(tl0, true);
      if (own < 0) this.info.copyWithin(at * LAYERS, bi, bi + LAYERS);
      if (this.info[at * LAYERS]! >= id) return DROP;
      this.update(id, tl0, 0);
      return HAND_OFF;
    }
    if ((tl & 4) !== 0) {
      const last = this.info[bi + tid]!;
      if (last !== -1 && last >= id) return DROP;
      this.update(id, tl0, tid);
      return HAND_OFF;
    }
    for (let layer = 0; layer <= tid; layer++) {
      const ref = this.info[bi + layer]!;
      if (ref === -1) return WAIT;
      if (ref >= id) return DROP;
      for (let m = Math.max(ref + 1, id - MAX_MISSING); m < id; m++) {
        if (this.missing[m % MISSING] === m) return WAIT;
      }
    }
    this.update(id, tl0, tid);
    return HAND_OFF;
  }

  /** This group's and every newer group's last frame on the layer, while older than `id`. */
  private update(id: number, tl0: number, tid: number): void {
    for (let g = tl0; ; g++) {
      const s = this.slot(g, false);
      if (s < 0) break;
      const v = this.info[s * LAYERS + tid]!;
      if (v !== -1 && v > id) break;
      this.info[s * LAYERS + tid] = id;
    }
    if (this.missing[id % MISSING] === id) this.missing[id % MISSING] = -1;
  }

  /** The ring slot of group `tl0`; −1 when absent (or too old), unless `make`. */
  private slot(tl0: number, make: boolean): number {
    const s = ((tl0 % INFO) + INFO) % INFO;
    if (this.infoKey[s] === tl0 && tl0 >= this.tl0Last - MAX_INFO) return s;
    if (!make) return -1;
    this.infoKey[s] = tl0;
    this.info.fill(-1, s * LAYERS, s * LAYERS + LAYERS);
    return s;
  }

  private unwrapTl0(v: number): number {
    if (this.tl0Last < 0) {
      this.tl0Last = 256 * 1024 + v;
      return this.tl0Last;
    }
    const d = ((((v - this.tl0Last) % 256) + 256 + 128) % 256) - 128;
    const u = this.tl0Last + d;
    if (u > this.tl0Last) this.tl0Last = u;
    return u;
  }
}

/**
 * PictureIDs to frame ids that keep increasing across wraps, as libwebrtc unwraps them: in a
 * 15-bit space whatever the descriptor's width (video_rtp_depacketizer_vp8.cc), so a 7-bit
 * PictureID's 127 → 0 is a step back of 127, not a step forward. With `mod` 65536, the dependency
 * descriptor's frame numbers (its SeqNumUnwrapper).
 */
export class PictureIds {
  private last = -1;
  private readonly mod: number;

  constructor(mod = 32768) {
    this.mod = mod;
  }

  unwrap(pid: number): number {
    const mod = this.mod;
    if (this.last < 0) {
      this.last = mod * 1024 + pid;
      return this.last;
    }
    let d = (pid - this.last) % mod;
    if (d < 0) d += mod;
    if (d >= mod / 2) d -= mod;
    const u = this.last + d;
    if (u > this.last) this.last = u;
    return u;
  }
}
