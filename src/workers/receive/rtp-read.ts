// The few RTP header fields a viewer needs, read straight from the datagram (RFC 3550 section 5.1),
// and one header extension element found in place (RFC 8285 one-byte and two-byte forms).
// No objects: every function returns a number or a boolean. Which datagram is RTP at all:
// src/core/wire/first-byte.ts.

/**
 * Length of the RTP header (fixed part, CSRCs, extension block) of a packet whose first `len`
 * bytes are header + payload, or −1 when it is not a version-2 RTP header that fits.
 */
export function rtpHeaderLength(b: Uint8Array, len: number): number {
  if (len < 12 || b[0]! >>> 6 !== 2) return -1;
  let n = 12 + 4 * (b[0]! & 0x0f);
  if ((b[0]! & 0x10) !== 0) {
    if (n + 4 > len) return -1;
    n += 4 + 4 * ((b[n + 2]! << 8) | b[n + 3]!);
  }
  return n <= len ? n : -1;
}

export function rtpSeq(b: Uint8Array): number {
  return (b[2]! << 8) | b[3]!;
}

export function rtpTimestamp(b: Uint8Array): number {
  return ((b[4]! << 24) | (b[5]! << 16) | (b[6]! << 8) | b[7]!) >>> 0;
}

export function rtpSsrc(b: Uint8Array): number {
  return ((b[8]! << 24) | (b[9]! << 16) | (b[10]! << 8) | b[11]!) >>> 0;
}

export function rtpMarker(b: Uint8Array): boolean {
  return (b[1]! & 0x80) !== 0;
}

export function rtpHasPadding(b: Uint8Array): boolean {
  return (b[0]! & 0x20) !== 0;
}

/** Offset of the data of a found extension element (findExtension's result ≥ 0). */
export function extensionOffset(found: number): number {
  return found >>> 8;
}

/** Length in bytes of the data of a found extension element (findExtension's result ≥ 0). */
export function extensionLength(found: number): number {
  return found & 0xff;
}

/**
 * Extension element `id` (1..255) in a packet whose header is `headerLen` bytes: −1 when
 * absent, else its data's offset and length in one integer (offset · 256 + length; read them
 * with extensionOffset and extensionLength), so that nothing is allocated or left in module
 * state. Handles the one-byte (0xBEDE) and two-byte (0x100x) forms.
 */
export function findExtension(b: Uint8Array, headerLen: number, id: number): number {
  if ((b[0]! & 0x10) === 0 || id <= 0) return -1;
  const at = 12 + 4 * (b[0]! & 0x0f);
  const profile = (b[at]! << 8) | b[at + 1]!;
  let i = at + 4;
  const end = headerLen;
  if (profile === 0xbede) {
    if (id > 14) return -1;
    while (i < end) {
      const byte = b[i]!;
      if (byte === 0) {
        i++; // padding
        continue;
      }
      const eid = byte >>> 4;
      if (eid === 15) return -1; // reserved: stop
      const len = (byte & 0x0f) + 1;
      if (i + 1 + len > end) return -1;
      if (eid === id) return (i + 1) * 256 + len;
      i += 1 + len;
    }
    return -1;
  }
  if ((profile & 0xfff0) === 0x1000) {
    while (i < end) {
      const eid = b[i]!;
      if (eid === 0) {
        i++;
        continue;
      }
      if (i + 2 > end) return -1;
      const len = b[i + 1]!;
      if (i + 2 + len > end) return -1;
      if (eid === id) return (i + 2) * 256 + len;
      i += 2 + len;
    }
  }
  return -1;
}
