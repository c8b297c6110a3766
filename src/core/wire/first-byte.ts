// The one first-byte classifier of a datagram on a WebRTC 5-tuple (RFC 7983 section 7: 0..3
// STUN, 20..63 DTLS, 64..79 TURN channel data, 128..191 RTP and RTCP) and the one RTP/RTCP
// split by the second byte (RFC 5761 section 4: RTCP packet types 192..223 share the range of
// RTP payload types 64..95 with the marker set). Every receive and send path asks these.

/** SRTP or SRTCP: the first byte is a version-2 byte, 128..191. */
export function isMediaByte(first: number): boolean {
  return first >= 128 && first <= 191;
}

/** A datagram whose first byte says SRTP or SRTCP (false for an empty one). */
export function isMedia(b: Uint8Array): boolean {
  return b.length > 0 && isMediaByte(b[0]!);
}

/** Of a media datagram: RTCP (its second byte an RTCP packet type, 192..223), else RTP. */
export function isRtcp(b: Uint8Array): boolean {
  const pt = b[1]!;
  return pt >= 192 && pt <= 223;
}
