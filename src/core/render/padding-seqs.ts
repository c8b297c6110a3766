// Padding-only packets the sequence-number finder lets fill its chain (docs/definitions.md#decodable-frames;
// libwebrtc's rtp_seq_num_only_ref_finder.cc and packet_buffer.cc): a server probing bandwidth sends
// packets with no payload between frames, and a delta frame whose first packet follows the last
// frame's last packet across such padding still continues the chain. Kept by sequence number (16
// bits) with the instant each arrived; one over a minute old is forgotten (its number comes round
// again after 65 536 packets).

const SLOTS = 1024;
const MASK = SLOTS - 1;
/** a padding packet this old no longer fills the chain, ns */
const FORGET_NS = 60e9;

export class PaddingSeqs {
  /** extendIn()'s instant, ns, set by the caller: a field, not an argument (a double is boxed in a call) */
  inNs = 0;
  private readonly seq = new Int32Array(SLOTS).fill(-1);
  private readonly atNs = new Float64Array(SLOTS);

  /** A padding-only packet with 16-bit sequence number `seq` arrived at `ns`. */
  add(seq: number, ns: number): void {
    this.seq[seq & MASK] = seq;
    this.atNs[seq & MASK] = ns;
  }

  /** Forgets every padding packet (a new seq-num finder has none). */
  clear(): void {
    this.seq.fill(-1);
  }

  /**
   * The chain's last id (an extended sequence number) moved over the padding packets that follow
   * it, at `ns`; those packets are used up.
   */
  extend(lastId: number, ns: number): number {
    this.inNs = ns;
    return this.extendIn(lastId);
  }

  /** extend(lastId, inNs). */
  extendIn(lastId: number): number {
    const ns = this.inNs;
    let id = lastId;
    for (;;) {
      const next = (id + 1) & 0xffff;
      const slot = next & MASK;
      if (this.seq[slot] !== next || ns - this.atNs[slot]! > FORGET_NS) return id;
      this.seq[slot] = -1;
      id++;
    }
  }
}
