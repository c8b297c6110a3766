// The receive half of the DTLS handshake mends (docs/definitions.md#dtls-handshake): handshake
// messages handled once each, in message_seq order, whatever order and however many times their
// datagrams arrive (RFC 6347 sections 4.2.2, 4.2.3), and a retransmission from the peer answered
// with our last flight (section 4.2.4). werift 0.25.2 internals used:
// DtlsSocket.prototype.handleFragmentHandshake
// (replaced: it now returns nothing and hands each message in order to the socket's
// .onHandleHandshakes), CipherContext.prototype.decryptPacket (.cipher, unset before the keys),
// the socket's .sessionType, .connected, .dtls, .cipher, .onError.
//
// What werift does: it handles each handshake message as its datagram arrives, fragments only when
// the last comes last, duplicates again, and drops an encrypted Finished that arrives before the
// ClientKeyExchange. Its server derives the master secret (extended master secret: a hash of the
// transcript) when the ClientKeyExchange is handled, over whatever its cache holds then: a
// Certificate still missing, or a CertificateVerify or Finished already there, gives wrong keys, and
// a CertificateVerify before the Certificate fails the handshake at once (bench/README.md).

import { answerWithLastFlight } from "./dtls-flights.ts";
import type {
  Cipher,
  Decrypt,
  DtlsContext,
  Fragment,
  FragmentClass,
  Plaintext,
  Reassemble,
  Socket,
} from "./dtls-shapes.ts";
import { DTLS_CLIENT } from "./dtls-shapes.ts";

/** How far ahead of the next expected message_seq a message is kept (a flight holds at most 6). */
const AHEAD_MAX = 16;
/** The largest handshake message kept (a WebRTC certificate is ~0.5 KB; a hostile length is not kept). */
const MESSAGE_MAX_BYTES = 65536;
/** Fragments taken per message before further ones are dropped. */
const FRAGMENTS_MAX = 256;
/** Records of a later epoch kept until the keys are derived, per handshake. */
const STASH_MAX = 8;
/** ContentType.handshake */
const HANDSHAKE = 22;
/** HandshakeType.client_hello */
const CLIENT_HELLO = 1;

/** One message being reassembled: its bytes and which ranges of them arrived. */
interface Partial {
  type: number;
  bytes: Buffer;
  /** [start, end) ranges that arrived, unsorted */
  ranges: [number, number][];
}

/** The receive state of one socket's handshake. */
interface Order {
  /** next_receive_seq */
  next: number;
  /** the peer's messages below this were in hand when our last flight went: a repeat asks it again */
  answerBelow: number;
  pending: Map<number, Partial>;
}

/** Per handshake: keyed by werift's DTLS context, which the socket and its flights share. */
const orders = new WeakMap<DtlsContext, Order>();
/** Encrypted handshake records that came before the keys, per cipher context. */
const stashes = new WeakMap<Cipher, Plaintext[]>();
let fragmentClass: FragmentClass | null = null;
let werifts: { reassemble: Reassemble; decrypt: Decrypt } | null = null;

/** Whether the mends act (bench/handshake-links.ts turns them off to measure werift's own). */
export const mends = { on: true };

function orderOf(dtls: DtlsContext): Order {
  let o = orders.get(dtls);
  if (o === undefined) {
    o = { next: 0, answerBelow: 0, pending: new Map() };
    orders.set(dtls, o);
  }
  return o;
}

/** A flight of ours went out (dtls-flights.ts): what the peer sent before it is answered by it. */
export function flightSent(dtls: DtlsContext): void {
  const o = orderOf(dtls);
  o.answerBelow = o.next;
}

/** Whether `p` covers [0, length). */
function complete(p: Partial): boolean {
  const sorted = [...p.ranges].sort((a, b) => a[0] - b[0]);
  let covered = 0;
  for (const [start, end] of sorted) {
    if (start > covered) return false;
    covered = Math.max(covered, end);
  }
  return covered >= p.bytes.length;
}

/** Takes one fragment: kept when ahead, answered when old, dropped when it cannot belong. */
function accept(s: Socket, o: Order, f: Fragment): void {
  const end = f.fragment_offset + f.fragment_length;
  if (end > f.length || f.fragment.length < f.fragment_length) return;
  if (f.message_seq < o.next) {
    // werift's server answers a repeated first ClientHello with a new HelloVerifyRequest itself
    const helloAgain = s.sessionType !== DTLS_CLIENT && o.next === 1 && f.msg_type === CLIENT_HELLO;
    if (helloAgain) s.onHandleHandshakes([f]).catch((e: unknown) => s.onError.execute(e));
    // a repeat from a flight of the peer's that our last flight answered: that answer was lost;
    // a repeat from the flight still arriving asks nothing; the client that got the final flight
    // has nothing to answer (RFC 6347 section 4.2.4, FINISHED)
    else if (f.message_seq < o.answerBelow && !(s.connected && s.sessionType === DTLS_CLIENT))
      answerWithLastFlight(s);
    return;
  }
  if (f.message_seq >= o.next + AHEAD_MAX || f.length > MESSAGE_MAX_BYTES) return;
  let p = o.pending.get(f.message_seq);
  if (p === undefined) {
    p = { type: f.msg_type, bytes: Buffer.alloc(f.length), ranges: [] };
    o.pending.set(f.message_seq, p);
  } else if (p.type !== f.msg_type || p.bytes.length !== f.length || p.ranges.length >= FRAGMENTS_MAX) return;
  f.fragment.copy(p.bytes, f.fragment_offset, 0, f.fragment_length);
  p.ranges.push([f.fragment_offset, end]);
}

/** Hands every message that is next and complete to werift, one at a time, in message_seq order. */
function deliver(s: Socket, o: Order, make: FragmentClass): void {
  for (;;) {
    const p = o.pending.get(o.next);
    if (p === undefined || !complete(p)) return;
    o.pending.delete(o.next);
    const message = new make(p.type, p.bytes.length, o.next, 0, p.bytes.length, p.bytes);
    o.next++;
    s.onHandleHandshakes([message]).catch((e: unknown) => s.onError.execute(e));
    unstash(s, o, make);
  }
}

/** Once the keys exist, the encrypted records that came before them are read and taken in. */
function unstash(s: Socket, o: Order, make: FragmentClass): void {
  const stash = stashes.get(s.cipher);
  if (stash === undefined || s.cipher.cipher === undefined || werifts === null) return;
  stashes.delete(s.cipher);
  for (const record of stash) {
    const found: Fragment[] = [];
    try {
      const raw = werifts.decrypt.call(s.cipher, record);
      for (let at = 0; at + 12 <= raw.length; ) {
        const f = make.deSerialize(raw.subarray(at));
        found.push(f);
        at += 12 + f.fragment_length;
      }
    } catch {
      // not ours to read, or not whole: werift drops such a record too
    }
    for (const f of found) accept(s, o, f);
  }
}

/** Replaces werift's reassembly with the ordered one, and keeps early encrypted handshake records. */
export function installOrder(
  socketProto: { handleFragmentHandshake: Reassemble },
  cipherProto: { decryptPacket: Decrypt },
): void {
  const own = { reassemble: socketProto.handleFragmentHandshake, decrypt: cipherProto.decryptPacket };
  werifts = own;
  socketProto.handleFragmentHandshake = function (this: Socket, messages: Fragment[]): Fragment[] {
    if (!mends.on) return own.reassemble.call(this, messages);
    const first = messages[0];
    if (first === undefined) return [];
    fragmentClass ??= first.constructor as FragmentClass;
    const o = orderOf(this.dtls);
    for (const f of messages) accept(this, o, f);
    deliver(this, o, fragmentClass);
    return [];
  };
  cipherProto.decryptPacket = function (this: Cipher, pkt: Plaintext): Buffer {
    const header = pkt.recordLayerHeader;
    if (!mends.on || this.cipher !== undefined || header.contentType !== HANDSHAKE || header.epoch === 0) {
      return own.decrypt.call(this, pkt);
    }
    const stash = stashes.get(this) ?? [];
    if (stash.length < STASH_MAX) stash.push(pkt);
    stashes.set(this, stash);
    return Buffer.alloc(0); // no handshake message in it yet: werift hands none on
  };
}
