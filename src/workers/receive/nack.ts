// The viewer's generic NACK generator (RFC 4585 section 6.2.1), used by both receive paths so that
// `nacksSent` means the same thing on each: a gap in the sequence numbers opens a group of
// missing packets; the group is NACKed at once and again every 100 ms while any of its packets
// is still missing, at most `maxNacks` times (docs/definitions.md#nacks: pion re-requests every 100 ms). Each
// group's NACKs are their own messages, so the count depends only on which packets arrived,
// not on how timers of different gaps happen to line up. Pure: the caller owns clock and timer.

export interface NackOptions {
  /** re-NACK period, ns (100 ms) */
  intervalNs?: number;
  /** NACK messages per group at most (10: the first plus nine re-requests over 0.9 s) */
  maxNacks?: number;
  /** groups held at once; the oldest is dropped past this (64) */
  maxGroups?: number;
  /** a jump of more than this many sequence numbers is a stream discontinuity, not loss (512) */
  maxGap?: number;
  /** missing packets held at most (libwebrtc's kMaxNackPackets, 1 000): past it the list is cleared */
  maxPackets?: number;
}

interface Group {
  /** missing extended sequence numbers, ascending; −1 once arrived */
  seqs: number[];
  left: number;
  sent: number;
  dueNs: number;
}

export class NackGenerator {
  /** NACK messages emitted by poll() */
  messages = 0;
  /** sequence numbers requested, counting every request of every message */
  requested = 0;
  /** times the list would have passed `maxPackets` and was cleared (a keyframe request) */
  overflows = 0;
  private readonly maxPackets: number;
  private readonly intervalNs: number;
  private readonly maxNacks: number;
  private readonly maxGroups: number;
  private readonly maxGap: number;
  private started = false;
  private maxSeq = 0;
  private maxExt = 0;
  private groups: Group[] = [];

  constructor(opts: NackOptions = {}) {
    this.intervalNs = opts.intervalNs ?? 100e6;
    this.maxNacks = opts.maxNacks ?? 10;
    this.maxGroups = opts.maxGroups ?? 64;
    this.maxGap = opts.maxGap ?? 512;
    this.maxPackets = opts.maxPackets ?? 1000;
  }

  /** Groups waiting for packets. */
  get pending(): number {
    return this.groups.length;
  }

  /**
   * One received (authenticated) packet, in arrival order. Returns true when it opened a new
   * group, i.e. a NACK is due now.
   */
  onPacket(seq: number, nowNs: number): boolean {
    if (!this.started) {
      this.started = true;
      this.maxSeq = seq;
      this.maxExt = seq;
      return false;
    }
    const delta = ((seq - this.maxSeq) << 16) >> 16; // int16
    if (delta > 0) {
      const ext = this.maxExt + delta;
      const missing = delta - 1;
      this.maxSeq = seq;
      this.maxExt = ext;
      if (missing === 0 || missing > this.maxGap) return false;
      if (this.held() + missing > this.maxPackets) {
        this.groups.length = 0;
        this.overflows++;
        return false;
      }
      const seqs: number[] = new Array(missing);
      for (let i = 0; i < missing; i++) seqs[i] = ext - missing + i;
      if (this.groups.length >= this.maxGroups) this.groups.shift();
      this.groups.push({ seqs, left: missing, sent: 0, dueNs: nowNs });
      return true;
    }
    if (delta < 0 && this.groups.length > 0) this.arrived(this.maxExt + delta);
    return false;
  }

  /** Missing packets in the list now. */
  private held(): number {
    let n = 0;
    for (const g of this.groups) n += g.left;
    return n;
  }

  private arrived(ext: number): void {
    const gs = this.groups;
    for (let g = 0; g < gs.length; g++) {
      const grp = gs[g]!;
      const first = grp.seqs[0]!;
      const i = ext - first;
      // seqs are consecutive at creation, so the slot is at a fixed offset
      if (i >= 0 && i < grp.seqs.length && grp.seqs[i] === ext) {
        grp.seqs[i] = -1;
        grp.left--;
        if (grp.left === 0) gs.splice(g, 1);
        return;
      }
    }
  }

  /** The earliest instant a NACK is due, or −1 when nothing is pending. */
  nextDueNs(): number {
    let due = -1;
    for (const g of this.groups) if (due < 0 || g.dueNs < due) due = g.dueNs;
    return due;
  }

  /**
   * Emits every group that is due at `nowNs` as one NACK message of its still-missing 16-bit
   * sequence numbers (ascending), and schedules its next request or retires it.
   */
  poll(nowNs: number, emit: (seqs: readonly number[]) => void): void {
    const gs = this.groups;
    let w = 0;
    for (let g = 0; g < gs.length; g++) {
      const grp = gs[g]!;
      if (grp.dueNs <= nowNs) {
        const out: number[] = [];
        for (const s of grp.seqs) if (s >= 0) out.push(s & 0xffff);
        emit(out);
        this.messages++;
        this.requested += out.length;
        grp.sent++;
        grp.dueNs = nowNs + this.intervalNs;
        if (grp.sent >= this.maxNacks) continue; // retired
      }
      gs[w++] = grp;
    }
    gs.length = w;
  }
}
