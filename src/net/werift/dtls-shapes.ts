// werift 0.25.2's DTLS 1.2 as the handshake mends (dtls-order.ts, dtls-flights.ts) reach it: the
// shapes of its handshake fragment, record, cipher context, DTLS context and socket, and the three
// prototypes patched, found once per thread. Internals used: DtlsSocket.prototype
// .handleFragmentHandshake, CipherContext.prototype.decryptPacket and the Flight class's prototype
// (not exported: reached through the Flight5 a client makes for a ServerHello), .transmit.
import { CipherContext, DtlsClient, DtlsSocket } from "werift";
import { weriftInternals } from "./version.ts";

/** A handshake message or fragment (RFC 6347 section 4.2.2) as werift parses it. */
export interface Fragment {
  readonly msg_type: number;
  readonly length: number;
  readonly message_seq: number;
  readonly fragment_offset: number;
  readonly fragment_length: number;
  readonly fragment: Buffer;
}

/** werift's FragmentedHandshake class: its constructor and parser. */
export interface FragmentClass {
  new (type: number, length: number, seq: number, offset: number, fragLength: number, frag: Buffer): Fragment;
  deSerialize(buf: Buffer): Fragment;
}

/** A DTLS record as werift parses it. */
export interface Plaintext {
  recordLayerHeader: { contentType: number; epoch: number };
  fragment: Buffer;
}

/** werift's cipher context: `cipher` is set once the keys are derived. */
export interface Cipher {
  cipher?: unknown;
  decryptPacket(pkt: Plaintext): Buffer;
}

/** werift's DTLS context: the flight it last sent or answered; the epoch and record number it writes. */
export interface DtlsContext {
  flight: number;
  epoch: number;
  /** the last record sequence number werift used in `epoch` (its next record takes ++ of it) */
  recordSequenceNumber: number;
}

/** The header an AEAD suite of werift authenticates a record with. */
export interface RecordHeader {
  type: number;
  version: number;
  epoch: number;
  sequenceNumber: number;
}

/** werift's cipher context as a record is sealed: its role and, once the keys exist, its suite. */
export interface RecordCipher {
  sessionType: number;
  cipher?: {
    encrypt(sessionType: number, data: Buffer, header: RecordHeader): Buffer;
    decrypt(sessionType: number, data: Buffer, header: RecordHeader): Buffer;
  };
}

/** SessionType.CLIENT in werift. */
export const DTLS_CLIENT = 1;

/** A werift DtlsClient or DtlsServer. */
export interface Socket {
  sessionType: number;
  connected: boolean;
  dtls: DtlsContext;
  cipher: Cipher & RecordCipher;
  transport: { send(buf: Buffer): unknown; socket: { ice?: { nominated?: { rtt?: unknown } } } };
  onHandleHandshakes(handshakes: Fragment[]): Promise<void>;
  onError: { execute(error: unknown): void };
}

/** A werift flight: one side's handshake messages sent and resent together. */
export interface Flight {
  dtls: DtlsContext;
  /** the cipher context, on the flights that have one */
  cipher?: RecordCipher;
  flight: number;
  /** the flight whose arrival ends this one's retransmissions; absent for a final flight */
  nextFlight?: number;
  send(buffers: Buffer[]): Promise<unknown>;
  setState(state: string): void;
}

export type Transmit = (this: Flight, buffers: Buffer[]) => Promise<void>;
export type Reassemble = (this: Socket, messages: Fragment[]) => Fragment[];
export type Decrypt = (this: Cipher, pkt: Plaintext) => Buffer;

/** The prototypes the mends replace a method of. */
export interface DtlsPrototypes {
  socket: { handleFragmentHandshake: Reassemble };
  cipher: { decryptPacket: Decrypt };
  flight: { transmit: Transmit };
}

/**
 * Flight is not exported; a DtlsClient given a ServerHello makes its Flight5 synchronously (then
 * fails to parse the empty one here, a rejection this swallows), and Flight5 extends Flight.
 */
function flightPrototype(): { transmit?: unknown } | null {
  const stub = { send: () => Promise.resolve(), close: () => {} };
  const client = new DtlsClient({ transport: stub } as unknown as ConstructorParameters<
    typeof DtlsClient
  >[0]);
  const handle = (client as unknown as { handleHandshakes?: (h: unknown[]) => Promise<void> })
    .handleHandshakes;
  if (typeof handle !== "function") return null;
  const hello = {
    msg_type: 2,
    length: 0,
    message_seq: 0,
    fragment_offset: 0,
    fragment_length: 0,
    fragment: Buffer.alloc(0),
  };
  handle.call(client, [hello]).catch(() => {});
  const flight5 = (client as unknown as { flight5?: object }).flight5;
  if (flight5 === undefined) return null;
  return Object.getPrototypeOf(Object.getPrototypeOf(flight5)) as { transmit?: unknown } | null;
}

/** The three prototypes, or a WeriftInternalsError naming what is missing. */
export function dtlsPrototypes(): DtlsPrototypes {
  const socket = DtlsSocket.prototype as unknown as { handleFragmentHandshake?: unknown };
  const cipher = CipherContext.prototype as unknown as { decryptPacket?: unknown };
  const flight = flightPrototype();
  const missing = [
    typeof socket.handleFragmentHandshake !== "function" && "DtlsSocket.prototype.handleFragmentHandshake",
    typeof cipher.decryptPacket !== "function" && "CipherContext.prototype.decryptPacket",
    typeof flight?.transmit !== "function" && "Flight.prototype.transmit",
  ].filter((m): m is string => typeof m === "string");
  if (missing.length > 0) {
    throw weriftInternals(`${missing.join(", ")} missing, the DTLS handshake mends cannot be applied`);
  }
  return { socket, cipher, flight } as unknown as DtlsPrototypes;
}
