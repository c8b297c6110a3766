// abs-capture-time header extension (http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time):
// its first 8 bytes are the capture instant as a 64-bit NTP timestamp, UQ32.32 seconds since
// 1900-01-01, big-endian. An optional 8-byte estimated clock offset may follow; it is ignored.

/** Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
const NTP_UNIX_OFFSET_S = 2208988800;
const TWO_32 = 4294967296;

/**
 * The capture instant of an abs-capture-time extension as Unix ns (a JS number: ~256 ns
 * resolution at today's instants), or −1 when the extension is shorter than 8 bytes.
 */
export function absCaptureToUnixNs(ext: Uint8Array): number {
  if (ext.length < 8) return -1;
  return absCaptureAtToUnixNs(ext, 0);
}

/** The same, read in place from b[at..at+8) (the caller checked the length): no view needed. */
export function absCaptureAtToUnixNs(b: Uint8Array, at: number): number {
  const sec = ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
  const frac = ((b[at + 4]! << 24) | (b[at + 5]! << 16) | (b[at + 6]! << 8) | b[at + 7]!) >>> 0;
  return (sec - NTP_UNIX_OFFSET_S) * 1e9 + Math.round((frac * 1e9) / TWO_32);
}

/** Writes Unix ns as the 8-byte NTP UQ32.32 capture time into out[0..7] (no allocation). */
export function unixNsToAbsCapture(unixNs: number, out: Uint8Array): void {
  const unixS = Math.floor(unixNs / 1e9);
  const remNs = unixNs - unixS * 1e9; // exact: unixS·1e9 is a multiple of 512, representable
  const sec = (unixS + NTP_UNIX_OFFSET_S) >>> 0; // era wrap in 2036, as NTP does
  let frac = Math.round((remNs * TWO_32) / 1e9);
  if (frac >= TWO_32) frac = TWO_32 - 1;
  out[0] = sec >>> 24;
  out[1] = (sec >>> 16) & 0xff;
  out[2] = (sec >>> 8) & 0xff;
  out[3] = sec & 0xff;
  out[4] = frac >>> 24;
  out[5] = (frac >>> 16) & 0xff;
  out[6] = (frac >>> 8) & 0xff;
  out[7] = frac & 0xff;
}
