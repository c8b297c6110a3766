// Builders shared by the clip and SPS tests: byte helpers, a ClipError assertion, Annex-B
// streams, and synthetic H.264 SPSs written bit by bit with emulation prevention.

import assert from "node:assert/strict";
import { spsTicks } from "../../src/core/clip/clip.ts";
import { ClipError } from "../../src/core/errors.ts";

export const hex = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);

export function throwsClip(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ClipError, `want a ClipError, got ${String(err)}`);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

// ---- Annex-B helpers ---------------------------------------------------------------------

export function annexB(...nals: Uint8Array[]): Uint8Array {
  const parts: number[] = [];
  for (const nal of nals) parts.push(0, 0, 0, 1, ...nal);
  return Uint8Array.from(parts);
}

/** Writes an RBSP bit by bit, then the NAL with emulation prevention. */
export class BitWriter {
  private readonly bits: number[] = [];
  u(n: number, v: number): this {
    for (let i = n - 1; i >= 0; i--) this.bits.push(Math.floor(v / 2 ** i) % 2);
    return this;
  }
  ue(v: number): this {
    const x = v + 1;
    const len = Math.floor(Math.log2(x));
    this.u(len, 0);
    return this.u(len + 1, x);
  }
  se(v: number): this {
    return this.ue(v > 0 ? 2 * v - 1 : -2 * v);
  }
  /** RBSP bytes with the stop bit and alignment. */
  rbsp(stop = true): Uint8Array {
    const bits = [...this.bits];
    if (stop) bits.push(1);
    while (bits.length % 8 !== 0) bits.push(0);
    const out = new Uint8Array(bits.length / 8);
    for (let i = 0; i < bits.length; i++) out[i >> 3]! |= bits[i]! << (7 - (i & 7));
    return out;
  }
}

export function addEmulationPrevention(rbsp: Uint8Array): Uint8Array {
  const out: number[] = [];
  let zeros = 0;
  for (const c of rbsp) {
    if (zeros >= 2 && c <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(c);
    zeros = c === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

export const spsNal = (rbsp: Uint8Array): Uint8Array =>
  Uint8Array.from([0x67, ...addEmulationPrevention(rbsp)]);

export interface SpsOpts {
  profile?: number;
  chroma?: number;
  scaling?: (w: BitWriter, lists: number) => void;
  pocType?: number;
  crop?: boolean;
  vui?: boolean;
  aspect?: "none" | "idc" | "extended";
  signal?: boolean;
  chromaLoc?: boolean;
  timing?: [units: number, scale: number] | null;
}

export function sps(o: SpsOpts = {}): BitWriter {
  const w = new BitWriter();
  const profile = o.profile ?? 66;
  w.u(8, profile).u(8, 0xe0).u(8, 31).ue(0);
  if (profile === 100 || profile === 244) {
    const chroma = o.chroma ?? 1;
    w.ue(chroma);
    if (chroma === 3) w.u(1, 0);
    w.ue(0).ue(0).u(1, 0);
    if (o.scaling) {
      w.u(1, 1);
      o.scaling(w, chroma === 3 ? 12 : 8);
    } else {
      w.u(1, 0);
    }
  }
  w.ue(0); // log2_max_frame_num_minus4
  const poc = o.pocType ?? 0;
  w.ue(poc);
  if (poc === 0) w.ue(2);
  if (poc === 1) w.u(1, 0).se(-3).se(7).ue(3).se(1).se(-2).se(100);
  w.ue(1).u(1, 0).ue(39).ue(22).u(1, 1).u(1, 1);
  if (o.crop) w.u(1, 1).ue(0).ue(0).ue(0).ue(4);
  else w.u(1, 0);
  if (o.vui === false) return w.u(1, 0);
  w.u(1, 1);
  if (o.aspect === "idc") w.u(1, 1).u(8, 1);
  else if (o.aspect === "extended") w.u(1, 1).u(8, 255).u(16, 4).u(16, 3);
  else w.u(1, 0);
  w.u(1, 0); // overscan
  if (o.signal) w.u(1, 1).u(3, 5).u(1, 0).u(1, 1).u(24, 0x010101);
  else w.u(1, 0);
  if (o.chromaLoc) w.u(1, 1).ue(1).ue(1);
  else w.u(1, 0);
  const timing = o.timing === undefined ? ([1, 60] as [number, number]) : o.timing;
  if (timing === null) return w.u(1, 0);
  w.u(1, 1).u(32, timing[0]).u(32, timing[1]).u(1, 1);
  return w;
}

export const ticksOf = (o: SpsOpts): number => spsTicks(spsNal(sps(o).rbsp()));
