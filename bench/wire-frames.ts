// The wire's per-frame one-way delay, from a packet capture of `lo` (bench:wire): a classic pcap
// file (dumpcap -P) is read, its UDP datagrams on the server's ports kept, and SRTP's clear RTP
// header (RFC 3711: sequence number, timestamp, SSRC stay readable) groups each stream's packets
// into frames by RTP timestamp. The publisher's stream is the one sent to a server port; every
// other stream from a server port is a viewer's. A server rewrites SSRC, sequence numbers and
// timestamps per viewer but forwards each payload byte for byte, so a viewer frame is paired with
// the publisher's frame by the sizes of its packets (constant SRTP overhead difference) and one
// timestamp offset per viewer, found by vote. No SRTP key is needed. A frame's wire delay is its
// last packet to the viewer − the publisher's first packet of it, as the report's t1 − t0.

/** One UDP datagram of the capture: capture instant (ns since the epoch, µs resolution), ports, payload. */
export interface WirePacket {
  tNs: number;
  src: number;
  dst: number;
  payload: Buffer;
}

/** Reads a classic pcap (Ethernet, as `lo` is captured, or Linux cooked) into its IPv4 UDP datagrams. */
export function readPcap(file: Buffer): WirePacket[] {
  const magic = file.readUInt32LE(0);
  const le = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  if (!le && file.readUInt32BE(0) !== 0xa1b2c3d4 && file.readUInt32BE(0) !== 0xa1b23c4d) {
    throw new Error("not a classic pcap file (capture with dumpcap -P)");
  }
  const u32 = (o: number) => (le ? file.readUInt32LE(o) : file.readUInt32BE(o));
  const nano = (le ? magic : file.readUInt32BE(0)) === 0xa1b23c4d;
  const link = u32(20);
  const l2 = link === 1 ? 14 : link === 113 ? 16 : link === 0 ? 4 : -1;
  if (l2 < 0) throw new Error(`link type ${link} not read here`);
  const out: WirePacket[] = [];
  for (let o = 24; o + 16 <= file.length; ) {
    const sec = u32(o);
    const frac = u32(o + 4);
    const incl = u32(o + 8);
    const at = o + 16;
    o = at + incl;
    if (o > file.length) break;
    const ip = at + l2;
    if (incl < l2 + 28 || file[ip]! >> 4 !== 4 || file[ip + 9] !== 17) continue;
    const udp = ip + (file[ip]! & 15) * 4;
    const len = file.readUInt16BE(udp + 4) - 8;
    if (udp + 8 + len > at + incl) continue;
    out.push({
      tNs: sec * 1e9 + (nano ? frac : frac * 1e3),
      src: file.readUInt16BE(udp),
      dst: file.readUInt16BE(udp + 2),
      payload: file.subarray(udp + 8, udp + 8 + len),
    });
  }
  return out;
}

/** An RTP (not RTCP) datagram, SRTP or not. */
function isRtp(p: Buffer): boolean {
  return p.length >= 12 && p[0]! >= 128 && p[0]! <= 191 && (p[1]! < 192 || p[1]! > 223);
}

/** One frame of one stream: its RTP timestamp, packet sizes by sequence, first and last capture instants. */
export interface WireFrame {
  ts: number;
  sizes: number[];
  firstNs: number;
  lastNs: number;
}

/** A stream's frames, in order of first packet; a retransmitted packet only moves `lastNs`. */
export function framesOf(packets: readonly WirePacket[]): WireFrame[] {
  const byTs = new Map<number, { f: WireFrame; seqs: Map<number, number> }>();
  const frames: WireFrame[] = [];
  for (const p of packets) {
    const ts = p.payload.readUInt32BE(4);
    const seq = p.payload.readUInt16BE(2);
    let e = byTs.get(ts);
    if (e === undefined) {
      e = { f: { ts, sizes: [], firstNs: p.tNs, lastNs: p.tNs }, seqs: new Map() };
      byTs.set(ts, e);
      frames.push(e.f);
    }
    e.f.lastNs = Math.max(e.f.lastNs, p.tNs);
    if (!e.seqs.has(seq)) e.seqs.set(seq, p.payload.length);
  }
  for (const { f, seqs } of byTs.values()) {
    f.sizes = [...seqs.entries()].sort((a, b) => ((a[0] - b[0] + 98304) % 65536) - 32768).map((e) => e[1]);
  }
  return frames;
}

/** Streams of RTP datagrams by (source port, destination port). */
export function rtpStreams(packets: readonly WirePacket[]): Map<string, WirePacket[]> {
  const m = new Map<string, WirePacket[]>();
  for (const p of packets) {
    if (!isRtp(p.payload)) continue;
    const k = `${p.src}>${p.dst}`;
    const l = m.get(k);
    if (l === undefined) m.set(k, [p]);
    else l.push(p);
  }
  return m;
}

/** The size difference (viewer − publisher) when every packet differs by the same, else null. */
function sizeShift(a: readonly number[], b: readonly number[]): number | null {
  if (a.length !== b.length || a.length === 0) return null;
  const d = a[0]! - b[0]!;
  for (let i = 1; i < a.length; i++) if (a[i]! - b[i]! !== d) return null;
  return d;
}

/**
 * Each viewer frame's publisher frame: the RTP timestamp offset (viewer − publisher, mod 2^32)
 * most viewer frames agree on, among publisher frames sent in the second before the viewer frame
 * whose packet sizes differ by one constant. Null when fewer than 10 frames agree.
 */
export function pairFrames(
  pub: readonly WireFrame[],
  viewer: readonly WireFrame[],
): Map<WireFrame, WireFrame> | null {
  const votes = new Map<string, number>();
  let j = 0;
  for (const v of viewer.slice(0, 400)) {
    while (j < pub.length && pub[j]!.firstNs < v.firstNs - 1e9) j++;
    for (let i = j; i < pub.length && pub[i]!.firstNs <= v.lastNs; i++) {
      const d = sizeShift(v.sizes, pub[i]!.sizes);
      if (d === null || pub[i]!.sizes.length < 2) continue;
      const key = `${(v.ts - pub[i]!.ts) >>> 0}/${d}`;
      votes.set(key, (votes.get(key) ?? 0) + 1);
    }
  }
  let best = "";
  let most = 0;
  for (const [k, n] of votes) if (n > most) [best, most] = [k, n];
  if (most < 10) return null;
  const offset = Number(best.split("/")[0]);
  const byTs = new Map(pub.map((f) => [f.ts, f]));
  const out = new Map<WireFrame, WireFrame>();
  for (const v of viewer) {
    const p = byTs.get((v.ts - offset) >>> 0);
    if (p !== undefined && p.sizes.length === v.sizes.length) out.set(v, p);
  }
  return out;
}

/** What the capture gives: every sampled frame's wire delay (ns), and the streams seen. */
export interface WireDelays {
  delaysNs: number[];
  viewers: number;
  unpaired: number;
  publisherFrames: number;
}

/**
 * Per-frame wire delay over the capture, with the report's window: a viewer frame whose first
 * packet came within `excludeNs` of the viewer's first RTP packet is left out (excludedFrames),
 * as is a frame whose publisher frame the capture has not.
 */
export function wireDelays(
  packets: readonly WirePacket[],
  serverPorts: ReadonlySet<number>,
  excludeNs: number,
): WireDelays {
  const streams = rtpStreams(packets.filter((p) => serverPorts.has(p.src) || serverPorts.has(p.dst)));
  const toServer = [...streams.entries()].filter(
    ([, l]) => serverPorts.has(l[0]!.dst) && !serverPorts.has(l[0]!.src),
  );
  if (toServer.length !== 1)
    throw new Error(`expected one publisher stream to the server, found ${toServer.length}`);
  const pub = framesOf(toServer[0]![1]);
  const delaysNs: number[] = [];
  let viewers = 0;
  let unpaired = 0;
  for (const [, l] of streams) {
    // a viewer's stream: from a server port to one that is not (the server's own forwards stay out)
    if (!serverPorts.has(l[0]!.src) || serverPorts.has(l[0]!.dst)) continue;
    const frames = framesOf(l);
    const pairs = pairFrames(pub, frames);
    if (pairs === null) {
      unpaired++;
      continue;
    }
    viewers++;
    const from = l[0]!.tNs + excludeNs;
    for (const [v, p] of pairs) if (v.firstNs >= from) delaysNs.push(v.lastNs - p.firstNs);
  }
  return { delaysNs, viewers, unpaired, publisherFrames: pub.length };
}
