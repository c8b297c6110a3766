// The RTCP a viewer writes, serialised by hand (RFC 3550 section 6.4.2 receiver report, RFC 4585
// section 6.2.1 generic NACK and section 6.3.1 PLI), and the one thing it reads from the sender's RTCP: the
// last sender report's NTP middle bits (LSR) for the receiver report's round-trip fields.
// Sent, on the lean paths, protected through OpenSSL and written on the ICE pair's socket
// (net/werift/rtcp-wire.ts); on werift's path through its public `RTCDtlsTransport.sendRtcp`.

/** What one report block says about the media stream (RFC 3550 section 6.4.1). */
export interface ReportBlock {
  ssrc: number;
  /** fraction lost since the previous report, 0..255 */
  fractionLost: number;
  /** cumulative packets lost (24-bit signed, clamped) */
  cumulativeLost: number;
  /** extended highest sequence number received */
  extHighest: number;
  /** interarrival jitter, RTP units */
  jitter: number;
  /** middle 32 bits of the last SR's NTP timestamp, 0 when none */
  lsr: number;
  /** delay since that SR, 1/65536 s, 0 when none */
  dlsr: number;
}

/** RR with zero or one report block. */
export function serializeRr(senderSsrc: number, block: ReportBlock | null): Buffer {
  const b = Buffer.alloc(block ? 32 : 8);
  b[0] = 0x80 | (block ? 1 : 0);
  b[1] = 201;
  b.writeUInt16BE(b.length / 4 - 1, 2);
  b.writeUInt32BE(senderSsrc >>> 0, 4);
  if (block) {
    b.writeUInt32BE(block.ssrc >>> 0, 8);
    b[12] = block.fractionLost & 0xff;
    const lost = Math.max(-0x800000, Math.min(0x7fffff, block.cumulativeLost));
    b.writeUIntBE(lost & 0xffffff, 13, 3);
    b.writeUInt32BE(block.extHighest >>> 0, 16);
    b.writeUInt32BE(Math.min(0xffffffff, Math.max(0, Math.round(block.jitter))) >>> 0, 20);
    b.writeUInt32BE(block.lsr >>> 0, 24);
    b.writeUInt32BE(block.dlsr >>> 0, 28);
  }
  return b;
}

/**
 * Generic NACK for `seqs` (16-bit, in order; a list crossing the wrap is fine): one FCI
 * (PID, BLP) per run of up to 17 sequence numbers, a new one at the wrap.
 */
export function serializeNack(senderSsrc: number, mediaSsrc: number, seqs: readonly number[]): Buffer {
  const fci: number[] = [];
  let i = 0;
  while (i < seqs.length) {
    const pid = seqs[i]!;
    let blp = 0;
    i++;
    while (i < seqs.length) {
      // not across the wrap: werift's parser adds the BLP offsets without wrapping (0 reads as 65536)
      const d = seqs[i]! - pid;
      if (d < 1 || d > 16) break;
      blp |= 1 << (d - 1);
      i++;
    }
    fci.push(pid, blp);
  }
  const b = Buffer.alloc(12 + 2 * fci.length);
  b[0] = 0x80 | 1; // FMT 1
  b[1] = 205;
  b.writeUInt16BE(b.length / 4 - 1, 2);
  b.writeUInt32BE(senderSsrc >>> 0, 4);
  b.writeUInt32BE(mediaSsrc >>> 0, 8);
  for (let k = 0; k < fci.length; k++) b.writeUInt16BE(fci[k]!, 12 + 2 * k);
  return b;
}

/**
 * SDES with one chunk: `ssrc`'s CNAME (RFC 3550 section 6.5; the item list ends with a null
 * octet and is padded to a 32-bit boundary). `cname` is ASCII, at most 255 bytes.
 */
export function serializeSdes(ssrc: number, cname: string): Buffer {
  const text = Buffer.from(cname, "ascii").subarray(0, 255);
  const chunk = 4 + 2 + text.length + 1;
  const b = Buffer.alloc(4 + Math.ceil(chunk / 4) * 4);
  b[0] = 0x80 | 1;
  b[1] = 202;
  b.writeUInt16BE(b.length / 4 - 1, 2);
  b.writeUInt32BE(ssrc >>> 0, 4);
  b[8] = 1; // CNAME
  b[9] = text.length;
  text.copy(b, 10);
  return b;
}

/** Picture loss indication (PSFB, FMT 1). */
export function serializePli(senderSsrc: number, mediaSsrc: number): Buffer {
  const b = Buffer.alloc(12);
  b[0] = 0x80 | 1;
  b[1] = 206;
  b.writeUInt16BE(2, 2);
  b.writeUInt32BE(senderSsrc >>> 0, 4);
  b.writeUInt32BE(mediaSsrc >>> 0, 8);
  return b;
}

/**
 * The LSR (middle 32 bits of the NTP timestamp) of the first sender report in a compound
 * RTCP packet, or −1 when it has none. Walks the compound by its length fields.
 */
export function senderReportLsr(rtcp: Uint8Array): number {
  let at = 0;
  while (at + 4 <= rtcp.length) {
    if (rtcp[at]! >>> 6 !== 2) return -1;
    const words = ((rtcp[at + 2]! << 8) | rtcp[at + 3]!) + 1;
    const end = at + 4 * words;
    if (end > rtcp.length) return -1;
    if (rtcp[at + 1] === 200 && words >= 7) {
      const m = at + 10;
      return ((rtcp[m]! << 24) | (rtcp[m + 1]! << 16) | (rtcp[m + 2]! << 8) | rtcp[m + 3]!) >>> 0;
    }
    at = end;
  }
  return -1;
}
