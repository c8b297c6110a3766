// The viewer's generic NACK generator (RFC 4585 section 6.2.1) with the timing of libwebrtc M106's
// receive-side NACK module (docs/definitions.md#nacks), used by every receive path so that
// `nacksSent` means the same thing on each. Each missing sequence number is an entry of one list:
// - a gap is asked for at once, every new missing number of it in one message;
// - a periodic tick (20 ms) sends, in one message, every entry whose last request is at least the
//   resend delay old: 100 ms until a round-trip time is known (`updateRtt`), then that RTT;
// - an entry is asked for at most `maxNacks` (10) times, and dropped once its packet arrives or
//   once it is `maxAgePackets` (10 000) behind the newest;
// - a gap that would take the list past `maxPackets` (1 000) clears it instead (an overflow: the
//   caller requests a keyframe).
// A forward jump of more than `maxGap` sequence numbers that the list could hold is a
// discontinuity, not loss (ours: a server that skips numbers it never sent this viewer, e.g.
// Janus's keyframe buffer); one it could not hold overflows as in libwebrtc, whatever its size.
// Pure: the caller owns clock and timer.

export interface NackOptions {
  /** resend delay until an RTT is known, ns (libwebrtc's kDefaultRttMs: 100 ms) */
  intervalNs?: number;
  /** the periodic tick, ns (libwebrtc's NackPeriodicProcessor: 20 ms) */
  tickNs?: number;
  /** requests per sequence number at most (kMaxNackRetries: 10) */
  maxNacks?: number;
  /** a jump of more than this many sequence numbers is a stream discontinuity, not loss (512) */
  maxGap?: number;
  /** missing packets held at most (kMaxNackPackets, 1 000): past it the list is cleared */
  maxPackets?: number;
  /** entries this far behind the newest are dropped (kMaxPacketAge, 10 000) */
  maxAgePackets?: number;
}

interface Entry {
  /** instant of the last request, −1 before the first */
  sentNs: number;
  retries: number;
}

export class NackGenerator {
  /** NACK messages emitted */
  messages = 0;
  /** sequence numbers requested, counting every request of every message */
  requested = 0;
  /** times the list would have passed `maxPackets` and was cleared (a keyframe request) */
  overflows = 0;
  private readonly maxPackets: number;
  private readonly maxAge: number;
  private readonly tickNs: number;
  private readonly maxNacks: number;
  private readonly maxGap: number;
  private resendNs: number;
  private started = false;
  private maxSeq = 0;
  private maxExt = 0;
  /** the tick grid's origin: the first packet's instant */
  private originNs = 0;
  /** missing extended sequence numbers, ascending (a Map keeps insertion order) */
  private readonly list = new Map<number, Entry>();
  private readonly batch: number[] = [];
  /** the earliest last request among the entries after the last poll (−1: one never asked for):
   * an entry's arrival may leave it early, which costs one idle tick, never a late request */
  private earliestSentNs = 0;

  constructor(opts: NackOptions = {}) {
    this.resendNs = opts.intervalNs ?? 100e6;
    this.tickNs = opts.tickNs ?? 20e6;
    this.maxNacks = opts.maxNacks ?? 10;
    this.maxGap = opts.maxGap ?? 512;
    this.maxPackets = opts.maxPackets ?? 1000;
    this.maxAge = opts.maxAgePackets ?? 10000;
  }

  /** Missing sequence numbers waiting for their packet. */
  get pending(): number {
    return this.list.size;
  }

  /** A round-trip time is known: an entry is asked for again once this long after its last request. */
  updateRtt(rttMs: number): void {
    this.resendNs = rttMs * 1e6;
  }

  /**
   * One received (authenticated) packet, in arrival order. Returns true when it added missing
   * sequence numbers, i.e. a NACK of them is due now (`pollNew`).
   */
  onPacket(seq: number, nowNs: number): boolean {
    if (!this.started) {
      this.started = true;
      this.maxSeq = seq;
      this.maxExt = seq;
      this.originNs = nowNs;
      return false;
    }
    const delta = ((seq - this.maxSeq) << 16) >> 16; // int16
    if (delta < 0) {
      if (this.list.size > 0) this.list.delete(this.maxExt + delta);
      return false;
    }
    if (delta === 0) return false;
    const ext = this.maxExt + delta;
    const missing = delta - 1;
    this.maxSeq = seq;
    this.maxExt = ext;
    if (missing === 0) return false;
    this.dropOld(ext);
    // libwebrtc has no discontinuity: a jump the list cannot hold overflows whatever its size (a PLI)
    if (missing > this.maxGap && this.list.size + missing <= this.maxPackets) return false;
    if (this.list.size + missing > this.maxPackets) {
      this.list.clear();
      this.overflows++;
      return false;
    }
    for (let s = ext - missing; s < ext; s++) this.list.set(s, { sentNs: -1, retries: 0 });
    this.earliestSentNs = -1;
    return true;
  }

  private dropOld(newestExt: number): void {
    for (const s of this.list.keys()) {
      if (s >= newestExt - this.maxAge) return;
      this.list.delete(s);
    }
  }

  /** The next tick at which an entry is due, or −1 when nothing is pending (O(1): per packet). */
  nextDueNs(): number {
    if (this.list.size === 0) return -1;
    const due = this.earliestSentNs < 0 ? this.originNs : this.earliestSentNs + this.resendNs;
    const k = Math.ceil((due - this.originNs) / this.tickNs);
    return this.originNs + Math.max(0, k) * this.tickNs;
  }

  /** The entries never asked for yet, in one message (the packet that revealed them). */
  pollNew(nowNs: number, emit: (seqs: readonly number[]) => void): void {
    this.collect(nowNs, emit, true);
  }

  /** A tick: every entry due at `nowNs` in one message, 16-bit sequence numbers ascending. */
  poll(nowNs: number, emit: (seqs: readonly number[]) => void): void {
    this.collect(nowNs, emit, false);
  }

  private collect(nowNs: number, emit: (seqs: readonly number[]) => void, onlyNew: boolean): void {
    const out = this.batch;
    out.length = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [s, e] of this.list) {
      const due = e.sentNs < 0 || (!onlyNew && nowNs - e.sentNs >= this.resendNs);
      if (due) {
        out.push(s & 0xffff);
        e.sentNs = nowNs;
        if (++e.retries >= this.maxNacks) {
          this.list.delete(s);
          continue;
        }
      }
      if (e.sentNs < earliest) earliest = e.sentNs;
    }
    this.earliestSentNs = earliest === Number.POSITIVE_INFINITY ? 0 : earliest;
    if (out.length === 0) return;
    this.messages++;
    this.requested += out.length;
    emit(out);
  }
}
