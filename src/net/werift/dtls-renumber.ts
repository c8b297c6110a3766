// Fresh record sequence numbers for every DTLS datagram a handshake sends again
// (docs/definitions.md#dtls-handshake): a retransmitted flight carries the same handshake messages
// (the same message_seq) in new records, each with a sequence number not used before in its epoch
// (RFC 6347 sections 4.1, 4.2.4). A peer with the replay check of section 4.1.2.6 — OpenSSL, as in
// Janus; BoringSSL, as in libwebrtc — discards a record whose number it has seen, so a flight sent
// again byte for byte reaches it only where the first copy did not. werift 0.25.2 sends the same
// bytes again; against Janus a viewer that lost Janus's ChangeCipherSpec and Finished resent its
// Finished with the number Janus had seen, and Janus never answered (bench/README.md). werift
// internals used: the DTLS context's .epoch and .recordSequenceNumber (its next record takes
// ++recordSequenceNumber), the cipher context's .sessionType and its AEAD suite's
// .encrypt/.decrypt(sessionType, data, {type, version, epoch, sequenceNumber}).
import type { DtlsContext, RecordCipher } from "./dtls-shapes.ts";
import { DTLS_CLIENT } from "./dtls-shapes.ts";

/** The record header: type, version, epoch, sequence number (48 bits), length (RFC 6347 4.1). */
const HEADER = 13;
const SERVER = 2;

/** The highest record sequence number this side put on the wire, per epoch, per handshake. */
const highest = new WeakMap<object, Map<number, number>>();

function highestOf(dtls: object): Map<number, number> {
  let m = highest.get(dtls);
  if (m === undefined) {
    m = new Map();
    highest.set(dtls, m);
  }
  return m;
}

/** The records of one datagram as [start, end) ranges; null where it is not whole records. */
function records(buf: Buffer): [number, number][] | null {
  const out: [number, number][] = [];
  for (let at = 0; at < buf.length; ) {
    if (at + HEADER > buf.length) return null;
    const end = at + HEADER + buf.readUInt16BE(at + 11);
    if (end > buf.length) return null;
    out.push([at, end]);
    at = end;
  }
  return out;
}

/**
 * Notes the sequence numbers of datagrams sent for the first time, and moves werift's counter past
 * those of its current epoch: werift numbers a flight's Finished after the epoch-0 records before
 * it (6, say) and then counts the new epoch from 0, so its 6th record after the handshake would
 * repeat the Finished's number.
 */
export function noteSent(dtls: DtlsContext, buffers: Buffer[]): void {
  const m = highestOf(dtls);
  for (const buf of buffers) {
    for (const [at] of records(buf) ?? []) {
      const epoch = buf.readUInt16BE(at + 3);
      const seq = buf.readUIntBE(at + 5, 6);
      if (seq > (m.get(epoch) ?? -1)) m.set(epoch, seq);
      if (epoch === dtls.epoch && seq > dtls.recordSequenceNumber) dtls.recordSequenceNumber = seq;
    }
  }
}

/** The next unused number of `epoch`; werift's own counter moves past it where it is that epoch's. */
function nextSeq(dtls: DtlsContext, m: Map<number, number>, epoch: number): number {
  const werifts = dtls.epoch === epoch ? dtls.recordSequenceNumber : -1;
  const seq = Math.max(m.get(epoch) ?? -1, werifts) + 1;
  m.set(epoch, seq);
  if (dtls.epoch === epoch) dtls.recordSequenceNumber = seq;
  return seq;
}

/** An encrypted record's fragment sealed again under sequence number `seq`, or null. */
function reseal(cipher: RecordCipher | undefined, rec: Buffer, seq: number): Buffer | null {
  const suite = cipher?.cipher;
  if (cipher === undefined || suite === undefined) return null;
  const header = {
    type: rec[0]!,
    version: rec.readUInt16BE(1),
    epoch: rec.readUInt16BE(3),
    sequenceNumber: rec.readUIntBE(5, 6),
  };
  try {
    // our own records open with the keys of our own side: the peer's side in werift's terms
    const own = cipher.sessionType === DTLS_CLIENT ? SERVER : DTLS_CLIENT;
    const plain = suite.decrypt(own, rec.subarray(HEADER), header);
    return suite.encrypt(cipher.sessionType, plain, { ...header, sequenceNumber: seq });
  } catch {
    return null;
  }
}

/**
 * The datagrams again with each record under a new sequence number of its epoch; an encrypted one
 * sealed again (an AEAD record authenticates its number). A datagram that is not whole records, or
 * a record that cannot be sealed again, goes as it was.
 */
export function renumber(dtls: DtlsContext, cipher: RecordCipher | undefined, buffers: Buffer[]): Buffer[] {
  const m = highestOf(dtls);
  return buffers.map((buf) => {
    const recs = records(buf);
    if (recs === null) return buf;
    const parts = recs.map(([start, end]) => {
      const rec = buf.subarray(start, end);
      const epoch = rec.readUInt16BE(3);
      const seq = nextSeq(dtls, m, epoch);
      const body = epoch === 0 ? rec.subarray(HEADER) : reseal(cipher, rec, seq);
      if (body === null) return rec;
      const out = Buffer.concat([rec.subarray(0, HEADER), body]);
      out.writeUIntBE(seq, 5, 6);
      out.writeUInt16BE(body.length, 11);
      return out;
    });
    return Buffer.concat(parts);
  });
}
