// The dependency descriptor RTP header extension
// (https://aomedia.org/av1-rtp-spec/#dependency-descriptor-rtp-header-extension), read for the
// render model's generic finder (docs/definitions.md#decodable-frames). Its mandatory fields (start
// and end of frame, template id, 16-bit frame number) are on every packet; the template dependency
// structure (per template its frame diffs) rides on a keyframe's first packet, and a descriptor is
// read with the last structure received. Read: the mandatory fields, the structure, custom frame
// diffs. Decode targets, chains and resolutions are skipped over (the finder needs none of them).

/** Templates at most (the template id is 6 bits). */
const MAX_TEMPLATES = 64;
/** Frame diffs per template or frame kept (libwebrtc's frame references at most: 5; more are counted). */
export const MAX_FDIFFS = 8;

/** A template dependency structure: per template its frame diffs. */
export class DdStructure {
  templateIdOffset = 0;
  templates = 0;
  decodeTargets = 0;
  chains = 0;
  /** frame diffs, MAX_FDIFFS per template */
  readonly fdiffs = new Int32Array(MAX_TEMPLATES * MAX_FDIFFS);
  /** how many frame diffs each template has */
  readonly fdiffCount = new Int32Array(MAX_TEMPLATES);
}

/** One descriptor as read (reused: the reader writes into it). */
export class DdFields {
  start = false;
  end = false;
  templateId = 0;
  frameNumber = 0;
  /** a structure rode on this packet (then `structure` is it) */
  attached = false;
  structure: DdStructure | null = null;
  /** the frame's diffs: the template's, or the custom ones */
  fdiffCount = 0;
  readonly fdiffs = new Int32Array(MAX_FDIFFS);
}

/** A bit reader over b[off, off + len); reading past the end sets `over`. */
class Bits {
  private b: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private endBit = 0;
  over = false;

  reset(b: Uint8Array, off: number, len: number): void {
    this.b = b;
    this.pos = off * 8;
    this.endBit = (off + len) * 8;
    this.over = false;
  }

  get left(): number {
    return this.endBit - this.pos;
  }

  f(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (this.pos >= this.endBit) {
        this.over = true;
        return 0;
      }
      v = v * 2 + ((this.b[this.pos >> 3]! >> (7 - (this.pos & 7))) & 1);
      this.pos++;
    }
    return v;
  }

  /** ns(n): a non-symmetric unsigned value below n. */
  ns(n: number): number {
    let w = 0;
    for (let x = n; x !== 0; x >>= 1) w++;
    const m = (1 << w) - n;
    const v = this.f(w - 1);
    if (v < m) return v;
    return (v << 1) - m + this.f(1);
  }
}

const bits = new Bits();

/**
 * Reads a descriptor at b[off, off + len) into `out`, with `known` the last structure received (null:
 * none). Returns false where it cannot be read — shorter than 3 bytes, past its end, a template
 * id outside the structure in force, or no structure at all — as libwebrtc then drops the packet.
 */
export function readDependencyDescriptor(
  b: Uint8Array,
  off: number,
  len: number,
  known: DdStructure | null,
  out: DdFields,
): boolean {
  if (len < 3) return false;
  // the mandatory fields are whole bytes: read as such (every packet has them)
  const b0 = b[off]!;
  out.start = b0 >= 0x80;
  out.end = (b0 & 0x40) !== 0;
  out.templateId = b0 & 0x3f;
  out.frameNumber = (b[off + 1]! << 8) | b[off + 2]!;
  out.attached = false;
  let s = known;
  let customFdiffs = false;
  const r = bits;
  r.reset(b, off + 3, len - 3);
  if (len > 3) {
    const structurePresent = r.f(1) === 1;
    const activePresent = r.f(1) === 1;
    const customDtis = r.f(1) === 1;
    customFdiffs = r.f(1) === 1;
    const customChains = r.f(1) === 1;
    if (structurePresent) {
      s = readStructure(r, new DdStructure());
      if (s === null) return false;
      out.attached = true;
    }
    if (s === null) return false;
    if (activePresent) r.f(s.decodeTargets);
    if (!frameFields(r, s, out, customDtis, customFdiffs, customChains)) return false;
  } else if (s === null) return false;
  out.structure = s;
  if (!customFdiffs) {
    const t = (out.templateId + MAX_TEMPLATES - s.templateIdOffset) % MAX_TEMPLATES;
    if (t >= s.templates) return false;
    out.fdiffCount = s.fdiffCount[t]!;
    const k = Math.min(out.fdiffCount, MAX_FDIFFS);
    for (let i = 0; i < k; i++) out.fdiffs[i] = s.fdiffs[t * MAX_FDIFFS + i]!;
  }
  return !r.over;
}

/** The frame's own decode target indications, diffs and chain diffs, where it carries them. */
function frameFields(
  r: Bits,
  s: DdStructure,
  out: DdFields,
  customDtis: boolean,
  customFdiffs: boolean,
  customChains: boolean,
): boolean {
  const t = (out.templateId + MAX_TEMPLATES - s.templateIdOffset) % MAX_TEMPLATES;
  if (t >= s.templates) return false;
  if (customDtis) r.f(2 * s.decodeTargets);
  if (customFdiffs) {
    let n = 0;
    for (let size = r.f(2); size !== 0 && !r.over; size = r.f(2)) {
      const d = r.f(4 * size) + 1;
      if (n < MAX_FDIFFS) out.fdiffs[n] = d;
      n++;
    }
    out.fdiffCount = n;
  }
  if (customChains) r.f(8 * s.chains);
  return !r.over;
}

/** template_dependency_structure(): null where it is cut short or has too many templates. */
function readStructure(r: Bits, s: DdStructure): DdStructure | null {
  s.templateIdOffset = r.f(6);
  s.decodeTargets = r.f(5) + 1;
  // template_layers: one template per step, until next_layer_idc 3
  let n = 0;
  let spatial = 0;
  for (let idc = 0; idc !== 3; ) {
    if (n === MAX_TEMPLATES || r.over) return null;
    n++;
    idc = r.f(2);
    if (idc === 2) spatial++;
  }
  s.templates = n;
  r.f(2 * s.decodeTargets * n); // template_dtis
  for (let t = 0; t < n; t++) {
    let k = 0;
    while (r.f(1) === 1 && !r.over) {
      const d = r.f(4) + 1;
      if (k < MAX_FDIFFS) s.fdiffs[t * MAX_FDIFFS + k] = d;
      k++;
    }
    s.fdiffCount[t] = k;
  }
  s.chains = r.ns(s.decodeTargets + 1);
  if (s.chains > 0) {
    for (let i = 0; i < s.decodeTargets; i++) r.ns(s.chains);
    r.f(4 * s.chains * n);
  }
  if (r.f(1) === 1) r.f(32 * (spatial + 1)); // render resolutions
  return r.over ? null : s;
}
