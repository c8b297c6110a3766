// The send half of the DTLS handshake mends (docs/definitions.md#dtls-handshake): a flight is
// retransmitted on a timer that doubles (RFC 6347 section 4.2.4.1), and the last flight each side sent is
// kept, so that a retransmission from the peer is answered with it (section 4.2.4), the final flight after
// the handshake included; each time in records with new sequence numbers (dtls-renumber.ts).
// werift 0.25.2 internals used: the Flight class's prototype .transmit (replaced), a flight's
// .dtls.flight, .nextFlight, .send, .setState, .cipher; the socket's .dtls, .cipher,
// .transport.send and the nominated ICE pair's .rtt beneath it (.transport.socket.ice.nominated).
//
// What werift does: it resends a flight after 0.5, 1.0, 1.5 … 5.5 s (linear, 10 times), byte for
// byte, and sends a final flight once; it answers a repeated flight only where its handler happens
// to send again.
import { noteSent, renumber } from "./dtls-renumber.ts";
import type { Flight, RecordCipher, Socket, Transmit } from "./dtls-shapes.ts";

/**
 * The first retransmission waits twice the ICE round trip, as libwebrtc sets BoringSSL's
 * (p2p/base/dtls_transport.cc), within [DTLS_RTO_MIN_MS, DTLS_RTO_MAX_MS]; RFC 6347 section 4.2.4.1 says
 * 1 s where the round trip is unknown, which is what a flight without one waits.
 */
export const DTLS_RTO_MIN_MS = 100;
export const DTLS_RTO_MAX_MS = 1000;
export const DTLS_RTO_UNKNOWN_MS = 1000;
/** Each wait doubles up to this (libwebrtc's ceiling for the first wait; RFC 6347 allows 60 s). */
export const DTLS_RTO_CAP_MS = 3000;
/** Retransmissions before the flight gives up: 0.1 … 3 s waits add up to ~27 s, werift's own ~33 s. */
export const DTLS_RETRANSMITS = 12;
/** A peer's flight arrives as a burst: one answer per burst, not one per message. */
const ANSWER_GAP_MS = 100;

/** The datagrams of the last flight a handshake sent, and when it last answered with them. */
interface LastFlight {
  buffers: Buffer[];
  dtls: Flight["dtls"];
  cipher: RecordCipher | undefined;
  send: (buffers: Buffer[]) => Promise<unknown>;
  answeredAtMs: number;
}

const lastFlights = new WeakMap<object, LastFlight>();

/** The ICE round trip beneath a flight's socket in seconds, where werift measured one. */
function iceRttSeconds(flight: Flight): number | undefined {
  const t = (flight as unknown as { transport?: { socket?: Socket["transport"]["socket"] } }).transport;
  const rtt = t?.socket?.ice?.nominated?.rtt;
  return typeof rtt === "number" && Number.isFinite(rtt) && rtt > 0 ? rtt : undefined;
}

/** The first wait of a flight, ms. */
export function initialRtoMs(rttSeconds: number | undefined): number {
  if (rttSeconds === undefined) return DTLS_RTO_UNKNOWN_MS;
  return Math.min(DTLS_RTO_MAX_MS, Math.max(DTLS_RTO_MIN_MS, Math.round(2 * rttSeconds * 1000)));
}

/** The waits of one flight, ms, first to last. */
export function rtoSequenceMs(firstMs: number): number[] {
  const out: number[] = [];
  for (let i = 0, wait = firstMs; i < DTLS_RETRANSMITS; i++, wait = Math.min(wait * 2, DTLS_RTO_CAP_MS)) {
    out.push(wait);
  }
  return out;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends our last flight again, once per burst of the peer's retransmission. */
export function answerWithLastFlight(s: Socket): void {
  const last = lastFlights.get(s.dtls);
  if (last === undefined) return;
  const now = performance.now();
  if (now - last.answeredAtMs < ANSWER_GAP_MS) return;
  last.answeredAtMs = now;
  last.send(renumber(last.dtls, last.cipher ?? s.cipher, last.buffers)).catch(() => {});
}

/** Replaces werift's linear retransmission with the doubling one, keeping each last flight. */
export function installFlights(
  proto: { transmit: Transmit },
  on: () => boolean,
  sent: (dtls: Flight["dtls"]) => void,
): void {
  const own = proto.transmit;
  proto.transmit = async function (this: Flight, buffers: Buffer[]): Promise<void> {
    if (!on()) return own.call(this, buffers);
    const { dtls, cipher, send } = this;
    lastFlights.set(dtls, { buffers, dtls, cipher, send, answeredAtMs: Number.NEGATIVE_INFINITY });
    sent(dtls);
    noteSent(dtls, buffers);
    const waits = rtoSequenceMs(initialRtoMs(iceRttSeconds(this)));
    for (let i = 0; ; i++) {
      this.setState("SENDING");
      this.send(i === 0 ? buffers : renumber(dtls, cipher, buffers)).catch(() => {});
      this.setState("WAITING");
      if (this.nextFlight === undefined) break; // a final flight is answered, not timed
      const wait = waits[i];
      if (wait === undefined) throw new Error(`over retransmitCount : ${this.flight} ${this.nextFlight}`); // internal: werift's own give-up, caught by its handshake as an error
      await sleep(wait);
      if (this.dtls.flight >= this.nextFlight) break;
    }
    this.setState("FINISHED");
  };
}
