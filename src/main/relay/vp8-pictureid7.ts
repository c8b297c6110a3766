// Test-only rewrites of a VP8 payload descriptor (RFC 7741, section 4.2). One whose PictureID is
// 15 bits wide (M = 1) to the 7-bit form: the PictureID's low 7 bits in one byte, the rest
// unchanged; a sender with 7-bit PictureIDs wraps them every 128 frames (the calibration's pattern).
// And one without a PictureID at all (the I bit cleared, its bytes removed): a receiver then finds
// references by sequence number. A payload without a PictureID is returned as it is by both.

export function toPictureId7(payload: Buffer): Buffer {
  if (payload.length < 4 || (payload[0]! & 0x80) === 0 || (payload[1]! & 0x80) === 0) return payload;
  const b = payload[2]!;
  if ((b & 0x80) === 0) return payload;
  const out = Buffer.allocUnsafe(payload.length - 1);
  out[0] = payload[0]!;
  out[1] = payload[1]!;
  out[2] = payload[3]! & 0x7f;
  payload.copy(out, 3, 4);
  return out;
}

export function withoutPictureId(payload: Buffer): Buffer {
  if (payload.length < 3 || (payload[0]! & 0x80) === 0 || (payload[1]! & 0x80) === 0) return payload;
  const width = (payload[2]! & 0x80) !== 0 ? 2 : 1;
  if (payload.length < 2 + width) return payload;
  const out = Buffer.allocUnsafe(payload.length - width);
  out[0] = payload[0]!;
  out[1] = payload[1]! & 0x7f;
  payload.copy(out, 2, 2 + width);
  return out;
}
