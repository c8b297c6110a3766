// Transport-wide congestion control feedback as a browser's receiver sends it
// (docs/definitions.md#transport-feedback): each packet's transport-wide sequence number
// (draft-holmer-rmcat-transport-wide-cc-extensions-01, the header extension) is recorded against
// its arrival instant in a preallocated ring, and each feedback message (RTCP RTPFB, FMT 15)
// reports every sequence number from the window's start to the highest received — base sequence
// number, status count, 24-bit reference time in 64 ms units, feedback packet count, run-length
// and status-vector chunks, receive deltas in 250 µs units of one byte (0..255) or two (signed) —
// in the manner of libwebrtc's RemoteEstimatorProxy: the window starts where the last message
// ended, moves back for a packet that arrives late (so it is reported again), and a first arrival
// is the only one recorded. Pure: no clock, no timer; the caller says when a message is due.

/** Sequence numbers kept (the oldest is overwritten): far more than 250 ms of any video stream. */
export const TWCC_RING = 1024;
const MASK = TWCC_RING - 1;
/** Statuses in one message at most, so that the largest message stays under 1 200 bytes. */
export const TWCC_MAX_STATUSES = 500;
/** Bytes of the largest message: header 20, chunks (2 per 7 statuses at worst), deltas, padding. */
const MAX_BYTES = 20 + 2 * Math.ceil(TWCC_MAX_STATUSES / 7) + 2 * TWCC_MAX_STATUSES + 4;
/** An extended sequence number's start, so that one arriving earlier stays positive. */
const START = 1 << 24;

/** The transport-wide feedback interval libwebrtc derives from a bitrate, ms (50..250). */
export function twccIntervalMs(bitrateBps: number): number {
  // a message on the wire: IPv4 20 + UDP 8 + SRTP 10 + an average report 30 bytes
  const reportBits = (20 + 8 + 10 + 30) * 8;
  // the reports may take 5 % of the bitrate, between one every 250 ms and one every 50 ms
  const minRate = (reportBits * 1000) / 250;
  const maxRate = (reportBits * 1000) / 50;
  const rate = Math.min(maxRate, Math.max(minRate, 0.05 * bitrateBps));
  return Math.floor(0.5 + (reportBits * 1000) / rate);
}

export class TwccRecorder {
  /** the extended sequence number each slot holds, −1: none */
  private readonly seqOf = new Float64Array(TWCC_RING).fill(-1);
  /** its arrival instant, monotonic ns */
  private readonly atNs = new Float64Array(TWCC_RING);
  private readonly symbols = new Uint8Array(TWCC_MAX_STATUSES);
  private readonly deltas = new Int32Array(TWCC_MAX_STATUSES);
  /** the message being written; the caller copies out what `next` returns */
  readonly out = new Uint8Array(MAX_BYTES);
  private highest = -1;
  private windowStart = -1;
  private fbCount = 0;
  /** feedback messages written */
  messages = 0;

  /** A packet with transport-wide sequence number `seq` (16-bit) arrived at `arrivalNs`. */
  onPacket(seq: number, arrivalNs: number): void {
    let ext: number;
    if (this.highest < 0) {
      ext = START + seq;
      this.highest = ext;
      this.windowStart = ext;
    } else {
      ext = this.highest + (((seq - (this.highest & 0xffff)) << 16) >> 16);
      if (ext > this.highest) this.highest = ext;
      else if (this.highest - ext >= TWCC_RING) return; // older than the ring: nothing to report
    }
    const slot = ext & MASK;
    if (this.seqOf[slot] === ext) return; // only the first arrival counts
    this.seqOf[slot] = ext;
    this.atNs[slot] = arrivalNs;
    if (ext < this.windowStart) this.windowStart = ext;
    const oldest = this.highest - TWCC_RING + 1;
    if (this.windowStart < oldest) this.windowStart = oldest;
  }

  private received(ext: number): boolean {
    return this.seqOf[ext & MASK] === ext;
  }

  /**
   * Writes the next feedback message into `out` and returns its length, or 0 when nothing is
   * left to report; call it until it returns 0 (a window longer than one message takes several).
   */
  next(senderSsrc: number, mediaSsrc: number): number {
    if (this.highest < 0 || this.windowStart > this.highest) return 0;
    let base = this.windowStart;
    // a window that opens with a long loss starts at its first received packet
    while (!this.received(base)) base++;
    if (base - this.windowStart < TWCC_MAX_STATUSES / 2) base = this.windowStart;
    const firstUs = Math.floor(this.atNs[this.firstReceived(base) & MASK]! / 1000);
    const refTicks = Math.floor(firstUs / 64000);
    let lastUs = refTicks * 64000;
    let count = 0;
    let ext = base;
    for (; ext <= this.highest && count < TWCC_MAX_STATUSES; ext++) {
      if (!this.received(ext)) {
        this.symbols[count++] = 0;
        continue;
      }
      const us = Math.floor(this.atNs[ext & MASK]! / 1000);
      const d = us - lastUs;
      const ticks = Math.trunc((d + (d < 0 ? -125 : 125)) / 250);
      if (ticks < -32768 || ticks > 32767) break; // the next message starts here
      this.symbols[count] = ticks >= 0 && ticks <= 255 ? 1 : 2;
      this.deltas[count++] = ticks;
      lastUs += ticks * 250;
    }
    this.windowStart = ext;
    const len = this.write(senderSsrc, mediaSsrc, base, count, refTicks);
    this.fbCount = (this.fbCount + 1) & 0xff;
    this.messages++;
    return len;
  }

  private firstReceived(from: number): number {
    let ext = from;
    while (!this.received(ext)) ext++;
    return ext;
  }

  private write(
    senderSsrc: number,
    mediaSsrc: number,
    base: number,
    count: number,
    refTicks: number,
  ): number {
    const o = this.out;
    const sym = this.symbols;
    o[1] = 205;
    put32(o, 4, senderSsrc);
    put32(o, 8, mediaSsrc);
    o[12] = (base >>> 8) & 0xff;
    o[13] = base & 0xff;
    o[14] = count >>> 8;
    o[15] = count & 0xff;
    const ref = refTicks & 0xffffff;
    o[16] = ref >>> 16;
    o[17] = (ref >>> 8) & 0xff;
    o[18] = ref & 0xff;
    o[19] = this.fbCount;
    let at = 20;
    let i = 0;
    while (i < count) {
      const s = sym[i]!;
      let run = 1;
      while (i + run < count && sym[i + run] === s && run < 8191) run++;
      const left = count - i;
      if (run >= 7 || run === left) {
        // run length chunk: T=0, S (2 bits), run length (13 bits)
        o[at++] = (s << 5) | (run >>> 8);
        o[at++] = run & 0xff;
        i += run;
        continue;
      }
      const n14 = Math.min(14, left);
      let small = true;
      for (let k = 0; k < n14; k++) if (sym[i + k]! > 1) small = false;
      let chunk: number;
      if (small) {
        // status vector, one bit a symbol: T=1, S=0, 14 symbols (missing ones read as not received)
        chunk = 0x8000;
        for (let k = 0; k < n14; k++) chunk |= sym[i + k]! << (13 - k);
        i += n14;
      } else {
        // status vector, two bits a symbol: T=1, S=1, 7 symbols
        chunk = 0xc000;
        const n7 = Math.min(7, left);
        for (let k = 0; k < n7; k++) chunk |= sym[i + k]! << (12 - 2 * k);
        i += n7;
      }
      o[at++] = chunk >>> 8;
      o[at++] = chunk & 0xff;
    }
    for (let k = 0; k < count; k++) {
      const s = sym[k]!;
      if (s === 1) o[at++] = this.deltas[k]!;
      else if (s === 2) {
        const d = this.deltas[k]! & 0xffff;
        o[at++] = d >>> 8;
        o[at++] = d & 0xff;
      }
    }
    // RFC 3550 padding to a 32-bit boundary: zeros, the last byte their count, the P bit set
    const pad = (4 - (at & 3)) & 3;
    for (let k = 1; k < pad; k++) o[at++] = 0;
    if (pad > 0) o[at++] = pad;
    o[0] = 0x80 | (pad > 0 ? 0x20 : 0) | 15;
    const words = at / 4 - 1;
    o[2] = words >>> 8;
    o[3] = words & 0xff;
    return at;
  }
}

function put32(o: Uint8Array, at: number, v: number): void {
  o[at] = v >>> 24;
  o[at + 1] = (v >>> 16) & 0xff;
  o[at + 2] = (v >>> 8) & 0xff;
  o[at + 3] = v & 0xff;
}
