// The ground truth's two halves, shared by bench:truth and test/e2e/truth.test.ts: the viewer
// thread's stamp records (written by bench/truth-worker.ts into a SharedArrayBuffer: the relay
// leg's port, the sequence number, the stamp and the receive-lag bound, −1 when none) and the
// relay's first write of each packet to each leg, keyed the same way.
import { isRtpDatagram } from "../src/net/send-stamp.ts";

const FLOATS = 4;

export interface StampRecord {
  port: number;
  seq: number;
  stampNs: number;
  lagNs: number;
}

/** A buffer for up to `max` stamp records. */
export function stampBuffer(max: number): SharedArrayBuffer {
  return new SharedArrayBuffer(8 + max * FLOATS * 8);
}

/** The writer's side (the worker thread): appends one RTP datagram's record; RTCP is skipped. */
export function stampWriter(
  buf: SharedArrayBuffer,
): (port: number, data: Buffer, stampNs: number, lagNs: number) => void {
  const count = new Int32Array(buf, 0, 2);
  const rec = new Float64Array(buf, 8);
  return (port, data, stampNs, lagNs) => {
    if (!isRtpDatagram(data)) return;
    const i = Atomics.add(count, 0, 1);
    if ((i + 1) * FLOATS > rec.length) return;
    const o = i * FLOATS;
    rec[o] = port;
    rec[o + 1] = data.readUInt16BE(2);
    rec[o + 2] = stampNs;
    rec[o + 3] = lagNs;
  };
}

/** The reader's side, after the run. */
export function stampRecords(buf: SharedArrayBuffer): StampRecord[] {
  const rec = new Float64Array(buf, 8);
  const n = Math.min(new Int32Array(buf, 0, 2)[0]!, rec.length / FLOATS);
  const out: StampRecord[] = [];
  for (let i = 0; i < n; i++) {
    const o = i * FLOATS;
    out.push({ port: rec[o]!, seq: rec[o + 1]!, stampNs: rec[o + 2]!, lagNs: rec[o + 3]! });
  }
  return out;
}

/** The relay's first write of each RTP packet to each leg (RelayTaps.legSend). */
export class LegWrites {
  private readonly at = new Map<number, number>();
  /** per leg: RFC 3550 interarrival jitter of the relay's writes (the wire's, on loopback), ns */
  private readonly jitter = new Map<number, { j: number; lastNs: number; lastTs: number }>();

  readonly record = (port: number, d: Buffer, nowNs: number): void => {
    if (!isRtpDatagram(d)) return;
    const key = port * 65536 + d.readUInt16BE(2);
    if (this.at.has(key)) return;
    this.at.set(key, nowNs);
    const ts = d.readUInt32BE(4);
    const leg = this.jitter.get(port);
    if (leg === undefined) {
      this.jitter.set(port, { j: 0, lastNs: nowNs, lastTs: ts });
      return;
    }
    // D = (arrival difference) − (RTP difference), 90 kHz video clock
    const dNs = nowNs - leg.lastNs - (((ts - leg.lastTs) | 0) * 1e9) / 90_000;
    leg.j += (Math.abs(dNs) - leg.j) / 16;
    leg.lastNs = nowNs;
    leg.lastTs = ts;
  };

  /** The jitter each leg's writes had at the end, ms (one value per leg). */
  jitterMs(): number[] {
    return [...this.jitter.values()].map((l) => l.j / 1e6);
  }

  /** The true client-added wait of a stamped datagram (stamp − the relay's write), or undefined. */
  waitNs(r: StampRecord): number | undefined {
    const sent = this.at.get(r.port * 65536 + r.seq);
    return sent === undefined ? undefined : r.stampNs - sent;
  }
}
