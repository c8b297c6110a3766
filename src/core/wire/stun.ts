// What the shared socket reads of a STUN request and of an IPv4 address to tell viewers apart
// (src/workers/receive/socket-sharing.ts): the USERNAME attribute, and a dotted quad as a number.

/** The USERNAME of a STUN request (RFC 8489 section 14.3), or null. */
export function stunUsername(d: Buffer): string | null {
  if (d.length < 20 || d[0]! > 1 || d.readUInt32BE(4) !== 0x2112a442) return null;
  let at = 20;
  const end = Math.min(d.length, 20 + d.readUInt16BE(2));
  while (at + 4 <= end) {
    const type = d.readUInt16BE(at);
    const len = d.readUInt16BE(at + 2);
    if (type === 0x0006) return at + 4 + len <= end ? d.toString("utf8", at + 4, at + 4 + len) : null;
    at += 4 + ((len + 3) & ~3);
  }
  return null;
}

/** 127.0.0.1 → 0x7f000001. */
export function ip4(s: string): number {
  const p = s.split(".");
  return ((+p[0]! << 24) >>> 0) + (+p[1]! << 16) + (+p[2]! << 8) + +p[3]!;
}
