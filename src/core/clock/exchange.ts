// The UDP clock exchange (docs/definitions.md#clock-exchange), pure parts: the 32-byte packet, the
// responder's acceptance rule, one probe's offset and round trip, the best point, and the
// piecewise-linear offset model.
//
// Packet, both directions exactly 32 bytes, big-endian:
//   0–3 "WBC1" | 4–7 nonce u32 | 8–15 t1 (client wall, Unix ns) | 16–23 t2 | 24–31 t3
// A request has t2 = t3 = 0; the response copies bytes 0–15 and sets t2 (responder wall clock at
// receipt) and t3 (just before sending).

export const CLOCK_PACKET_BYTES = 32;
const MAGIC = 0x57424331; // "WBC1"

export function encodeRequest(nonce: number, t1WallNs: bigint, out: Buffer): void {
  out.fill(0, 0, CLOCK_PACKET_BYTES);
  out.writeUInt32BE(MAGIC, 0);
  out.writeUInt32BE(nonce >>> 0, 4);
  out.writeBigInt64BE(t1WallNs, 8);
}

/** The responder answers only an exact 32-byte request with the magic and bytes 16–31 zero. */
export function isRequest(b: Uint8Array): boolean {
  if (b.length !== CLOCK_PACKET_BYTES) return false;
  if (b[0] !== 0x57 || b[1] !== 0x42 || b[2] !== 0x43 || b[3] !== 0x31) return false;
  for (let i = 16; i < 32; i++) if (b[i] !== 0) return false;
  return true;
}

/** The response: the request's first 16 bytes, then t2 and t3. Never larger than the request. */
export function encodeResponse(request: Uint8Array, t2WallNs: bigint, t3WallNs: bigint): Buffer {
  const out = Buffer.alloc(CLOCK_PACKET_BYTES);
  out.set(request.subarray(0, 16), 0);
  out.writeBigInt64BE(t2WallNs, 16);
  out.writeBigInt64BE(t3WallNs, 24);
  return out;
}

export interface Response {
  nonce: number;
  t1WallNs: bigint;
  t2WallNs: bigint;
  t3WallNs: bigint;
}

export function decodeResponse(b: Uint8Array): Response | null {
  if (b.length !== CLOCK_PACKET_BYTES) return null;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.length);
  if (buf.readUInt32BE(0) !== MAGIC) return null;
  return {
    nonce: buf.readUInt32BE(4),
    t1WallNs: buf.readBigInt64BE(8),
    t2WallNs: buf.readBigInt64BE(16),
    t3WallNs: buf.readBigInt64BE(24),
  };
}

/** One answered probe: the responder's clock minus ours, known to ± rtt/2. */
export interface Probe {
  offsetNs: number;
  rttNs: number;
  /** the probe's midpoint on our monotonic clock */
  atMonoNs: number;
}

/**
 * docs/definitions.md#clock-exchange per answer: elapsed = t4 − t1 on the monotonic clock; rtt =
 * elapsed − (t3 − t2); t4w = t1w + elapsed; offset = ((t2 − t1w) + (t3 − t4w)) / 2, truncated. Null
 * when rejected.
 */
export function probeOf(r: Response, t1MonoNs: number, t4MonoNs: number): Probe | null {
  const elapsed = BigInt(Math.round(t4MonoNs - t1MonoNs));
  const held = r.t3WallNs - r.t2WallNs;
  const rtt = elapsed - held;
  if (rtt < 0n || held < 0n) return null;
  const t4w = r.t1WallNs + elapsed;
  const offset = (r.t2WallNs - r.t1WallNs + (r.t3WallNs - t4w)) / 2n;
  return { offsetNs: Number(offset), rttNs: Number(rtt), atMonoNs: t1MonoNs + Number(elapsed) / 2 };
}

/** The point of a measurement: the answer with the smallest round trip. */
export function bestProbe(probes: readonly Probe[]): Probe | null {
  let best: Probe | null = null;
  for (const p of probes) if (best === null || p.rttNs < best.rttNs) best = p;
  return best;
}

/**
 * Piecewise-linear offset between points, held constant before the first and after the last.
 * Points must be added in time order.
 */
export class OffsetModel {
  readonly points: Probe[] = [];

  add(p: Probe): void {
    this.points.push(p);
  }

  offsetAt(monoNs: number): number | null {
    const ps = this.points;
    const first = ps[0];
    if (!first) return null;
    if (monoNs <= first.atMonoNs) return first.offsetNs;
    for (let i = 1; i < ps.length; i++) {
      const a = ps[i - 1] as Probe;
      const b = ps[i] as Probe;
      if (monoNs <= b.atMonoNs) {
        const f = (monoNs - a.atMonoNs) / (b.atMonoNs - a.atMonoNs);
        return a.offsetNs + f * (b.offsetNs - a.offsetNs);
      }
    }
    return (ps[ps.length - 1] as Probe).offsetNs;
  }

  /** Largest rtt/2 over the points, in ms rounded up to 0.001 ms; null without points. */
  uncertaintyMs(): number | null {
    if (this.points.length === 0) return null;
    const halfMax = Math.max(...this.points.map((p) => p.rttNs / 2));
    return Math.ceil(halfMax / 1000) / 1000;
  }
}
