// The receiver reports in a capture (bench/rtcp-wire.ts): each SRTCP datagram a receiver sent that
// leads with a receiver report, read from a pcap file. Only the first 8 octets of SRTCP are clear
// (version, packet type and length of the first packet, the sender's SSRC), and the SRTCP trailer —
// E flag and index (4 octets), then the tag (10 octets with AES_CM_128_HMAC_SHA1_80, 16 with AES-GCM)
// — ends each; so what follows the report is known by its size alone: nothing (a report alone), an
// SDES, a NACK or PLI. The tag's length is found per sender from the index: the 32-bit word before
// the tag has the E flag set and counts up by one a packet.
import { readFileSync } from "node:fs";

/** One RR-led SRTCP datagram: its UDP source port, its sender's SSRC, and the octets after the RR. */
export interface RrDatagram {
  port: number;
  ssrc: number;
  /** the datagram's length less the RR's */
  afterRr: number;
  /** the datagram (the UDP payload) */
  data: Buffer;
}

const RTCP_RR = 201;

/** The UDP payloads of a pcap file (Ethernet, Linux cooked v1/v2 or raw IPv4 link types). */
export function udpPayloads(file: string): { srcPort: number; dstPort: number; data: Buffer }[] {
  const b = readFileSync(file);
  if (b.length < 24) return [];
  const le = b.readUInt32LE(0) === 0xa1b2c3d4 || b.readUInt32LE(0) === 0xa1b23c4d;
  const u32 = (at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const linkSkip: Record<number, number> = { 1: 14, 113: 16, 276: 20, 101: 0, 228: 0 };
  const link = linkSkip[u32(20)];
  if (link === undefined) throw new Error(`pcap link type ${u32(20)} is not read here`);
  const out: { srcPort: number; dstPort: number; data: Buffer }[] = [];
  for (let at = 24; at + 16 <= b.length; ) {
    const caplen = u32(at + 8);
    const rec = b.subarray(at + 16, at + 16 + caplen);
    at += 16 + caplen;
    const ip = rec.subarray(link);
    if (ip.length < 28 || ip[0]! >> 4 !== 4 || ip[9] !== 17) continue;
    const udp = ip.subarray((ip[0]! & 0x0f) * 4);
    const len = udp.readUInt16BE(4);
    if (udp.length < len) continue; // cut by the snap length
    out.push({ srcPort: udp.readUInt16BE(0), dstPort: udp.readUInt16BE(2), data: udp.subarray(8, len) });
  }
  return out;
}

/** The datagrams that lead with a receiver report. */
export function rrDatagrams(payloads: { srcPort: number; data: Buffer }[]): RrDatagram[] {
  const out: RrDatagram[] = [];
  for (const { srcPort, data } of payloads) {
    if (data.length < 8 || data[0]! >> 6 !== 2 || data[1] !== RTCP_RR) continue;
    const rrLen = (data.readUInt16BE(2) + 1) * 4;
    out.push({ port: srcPort, ssrc: data.readUInt32BE(4), afterRr: data.length - rrLen, data });
  }
  return out;
}

/** The trailers: their length, and where the E flag and index word is, from the end. */
const TRAILERS = [
  { length: 14, indexFromEnd: 14 },
  { length: 20, indexFromEnd: 4 },
] as const;

/**
 * The SRTCP trailer's length of one sender's datagrams (in order): 14 or 20 octets, the one whose
 * E-flagged index counts up; null when neither does.
 */
export function trailerLength(sent: readonly Buffer[]): number | null {
  for (const t of TRAILERS) {
    let prev = -1;
    let ok = sent.length > 1;
    for (const d of sent) {
      const w = d.length >= t.length ? d.readUInt32BE(d.length - t.indexFromEnd) : 0;
      if (w >>> 31 !== 1 || (w & 0x7fffffff) <= prev) {
        ok = false;
        break;
      }
      prev = w & 0x7fffffff;
    }
    if (ok) return t.length;
  }
  return null;
}

/** One sender's RR-led datagrams, by what follows the report. */
export interface RrTally {
  port: number;
  ssrc: number;
  datagrams: number;
  /** whether every report carries an SDES after it: no datagram is shorter than RR + SDES (28) */
  sdes: boolean;
  /** reports alone (nothing after them but the SDES where `sdes`) */
  alone: number;
  /** reports that lead a NACK or PLI */
  compound: number;
  /** the octets after the RR (and SDES) of the datagrams, size: count */
  sizes: Map<number, number>;
}

/** The SDES of our minimal profile's viewer: a 16-character CNAME chunk (receiver-reports.ts). */
const OUR_SDES = 28;

/** Every sender's tally (port and SSRC), or null for one whose trailer could not be told. */
export function tally(
  rr: readonly RrDatagram[],
): (RrTally | { port: number; ssrc: number; trailer: null })[] {
  const by = new Map<string, RrDatagram[]>();
  for (const d of rr) {
    const k = `${d.port}/${d.ssrc}`;
    const list = by.get(k) ?? [];
    list.push(d);
    by.set(k, list);
  }
  const out: (RrTally | { port: number; ssrc: number; trailer: null })[] = [];
  for (const list of by.values()) {
    const { port, ssrc } = list[0]!;
    const t = trailerLength(list.map((d) => d.data));
    if (t === null) {
      out.push({ port, ssrc, trailer: null });
      continue;
    }
    const rests = list.map((d) => d.afterRr - t);
    const sdes = Math.min(...rests) >= OUR_SDES;
    const sizes = new Map<number, number>();
    let alone = 0;
    for (const r of rests) {
      const after = sdes ? r - OUR_SDES : r;
      if (after === 0) alone++;
      sizes.set(after, (sizes.get(after) ?? 0) + 1);
    }
    out.push({ port, ssrc, datagrams: list.length, sdes, alone, compound: list.length - alone, sizes });
  }
  return out;
}
