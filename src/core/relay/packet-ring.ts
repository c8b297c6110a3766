// The publisher's packets on their way to the relay's threads (docs/definitions.md#relay-send-path):
// a ring of RING_SLOTS slots in one SharedArrayBuffer, written once per packet by the thread that
// receives the publisher and read by every relay thread in place (no copy per thread or leg), as
// the send log is. Per slot: sequence number, timestamp, marker, abs-capture-time payload (up to
// 16 bytes) and the payload. The count of packets written is published with Atomics after the
// slot is complete; a reader that fell more than RING_SLOTS behind skips what was overwritten.

export const RING_SLOTS = 1024;
export const RING_SLOT_BYTES = 1536;
const ABS_MAX = 16;
const META = 4; // int32 per slot: seq, ts, marker | absLen << 8, payloadLen
const CTL_BYTES = 16;

/** One packet as a reader sees it: views of the ring's bytes, valid until the slot is rewritten. */
export interface RingPacket {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Buffer;
  abs: Buffer | null;
}

export class PacketRing {
  readonly sab: SharedArrayBuffer;
  private readonly ctl: Int32Array;
  private readonly meta: Int32Array;
  private readonly data: Uint8Array;
  private readonly dataAt: number;

  constructor(sab = new SharedArrayBuffer(CTL_BYTES + RING_SLOTS * (META * 4 + RING_SLOT_BYTES))) {
    this.sab = sab;
    this.ctl = new Int32Array(sab, 0, 4);
    this.meta = new Int32Array(sab, CTL_BYTES, RING_SLOTS * META);
    this.dataAt = CTL_BYTES + RING_SLOTS * META * 4;
    this.data = new Uint8Array(sab, this.dataAt, RING_SLOTS * RING_SLOT_BYTES);
  }

  /** Packets written so far. */
  get count(): number {
    return Atomics.load(this.ctl, 0);
  }

  /** The counter readers wait on (index 0). */
  get counter(): Int32Array {
    return this.ctl;
  }

  /** Writes one packet; false (nothing written) where it does not fit a slot. */
  write(seq: number, ts: number, marker: boolean, payload: Uint8Array, abs: Uint8Array | null): boolean {
    const absLen = abs === null || abs.length > ABS_MAX ? 0 : abs.length;
    if (payload.length > RING_SLOT_BYTES - ABS_MAX) return false;
    const n = this.count;
    const i = n % RING_SLOTS;
    const m = i * META;
    this.meta[m] = seq;
    this.meta[m + 1] = ts | 0;
    this.meta[m + 2] = (marker ? 1 : 0) | (absLen << 8);
    this.meta[m + 3] = payload.length;
    const at = i * RING_SLOT_BYTES;
    if (absLen > 0) this.data.set(abs!, at);
    this.data.set(payload, at + ABS_MAX);
    Atomics.store(this.ctl, 0, n + 1);
    Atomics.notify(this.ctl, 0);
    return true;
  }

  /** Packet number `n` (from 0), as views of its slot. */
  read(n: number): RingPacket {
    const i = n % RING_SLOTS;
    const m = i * META;
    const flags = this.meta[m + 2]!;
    const absLen = flags >>> 8;
    const at = this.dataAt + i * RING_SLOT_BYTES;
    return {
      seq: this.meta[m]! & 0xffff,
      ts: this.meta[m + 1]! >>> 0,
      marker: (flags & 1) === 1,
      payload: Buffer.from(this.sab, at + ABS_MAX, this.meta[m + 3]!),
      abs: absLen > 0 ? Buffer.from(this.sab, at, absLen) : null,
    };
  }
}
