// A seeded impairment between two werift peers of this thread, for the handshake tests and
// bench/handshake-links.ts: every datagram a peer's UDP sockets read (STUN, DTLS, SRTP, SRTCP) is
// dropped, duplicated or delayed by a normal jitter that may reorder, before werift sees it, each
// copy in a macrotask of its own as libuv hands datagrams. The draws come from the link emulator's
// generator (src/core/link/model.ts LinkRandom), one stream per pair and direction, so the fate of
// the n-th datagram of a direction depends only on the seed. Test and bench tooling, not a product path.
import { LinkRandom } from "../src/core/link/model.ts";
import { gatheringComplete, newPeer, videoCodecs } from "../src/net/rtc.ts";
import type { RTCPeerConnection } from "../src/net/werift/api.ts";
import { peerUdpTransports, type UdpReceive, wrapReceive } from "../src/net/werift/transports.ts";

/** What one direction does to each datagram; absent fields add nothing. */
export interface Impairment {
  /** independent loss chance per datagram (0..1) */
  loss?: number;
  /** chance that a datagram that survived is delivered twice (0..1) */
  duplicate?: number;
  /** mean one-way delay, ms */
  delayMs?: number;
  /** standard deviation of a normal jitter around delayMs, ms; datagrams may overtake each other */
  jitterMs?: number;
}

/** What the link did to one direction. */
export interface ImpairCounts {
  datagrams: number;
  dropped: number;
  duplicated: number;
  /** datagrams delivered before one that was read earlier (overtakes) */
  reordered: number;
}

/** Wraps the receive of every UDP transport of `pc` (gathered) with `imp`; returns its counts. */
export function impairReceive(pc: RTCPeerConnection, imp: Impairment, rng: LinkRandom): ImpairCounts {
  const counts: ImpairCounts = { datagrams: 0, dropped: 0, duplicated: 0, reordered: 0 };
  const delayMs = imp.delayMs ?? 0;
  const jitterMs = imp.jitterMs ?? 0;
  let latestDueMs = 0;
  for (const t of peerUdpTransports(pc)) {
    wrapReceive(
      t,
      (own: UdpReceive): UdpReceive =>
        (data, addr) => {
          counts.datagrams++;
          if (imp.loss !== undefined && rng.next() < imp.loss) {
            counts.dropped++;
            return;
          }
          const copies = imp.duplicate !== undefined && rng.next() < imp.duplicate ? 2 : 1;
          if (copies === 2) counts.duplicated++;
          for (let i = 0; i < copies; i++) {
            const waitMs = Math.max(0, delayMs + (jitterMs > 0 ? jitterMs * rng.normal() : 0));
            const dueMs = performance.now() + waitMs;
            if (dueMs < latestDueMs) counts.reordered++;
            else latestDueMs = dueMs;
            if (waitMs === 0 && i === 0) own(data, addr);
            else setTimeout(() => own(data, addr), waitMs);
          }
        },
    );
  }
  return counts;
}

/** Which side offers: the offerer is DTLS server (`actpass` answered `active`), as our viewers are. */
export interface ImpairedPair {
  /** the offerer (a WHEP viewer: DTLS server) */
  offerer: RTCPeerConnection;
  /** the answerer (the built-in relay: DTLS client) */
  answerer: RTCPeerConnection;
  /** what the links did: toward the offerer, toward the answerer */
  down: ImpairCounts;
  up: ImpairCounts;
}

const ice = { loopbackOnly: true, includeLoopback: false };

/**
 * A recvonly offerer and a sendonly answerer over 127.0.0.1, `down` impairing what the offerer
 * reads and `up` what the answerer reads, each with its own seeded stream (seed, pair index).
 * Resolves once the answer is applied; ICE and DTLS then run over the impaired links.
 */
export async function impairedPair(
  down: Impairment,
  up: Impairment,
  seed: number,
  index: number,
): Promise<ImpairedPair> {
  const answerer = newPeer(ice, videoCodecs("vp8"));
  const offerer = newPeer(ice, videoCodecs("viewer"));
  answerer.addTransceiver("video", { direction: "sendonly" });
  offerer.addTransceiver("video", { direction: "recvonly" });
  await offerer.setLocalDescription(await offerer.createOffer());
  await gatheringComplete(offerer, 5000);
  const downCounts = impairReceive(offerer, down, new LinkRandom(seed, index, 0));
  await answerer.setRemoteDescription(offerer.localDescription!);
  await answerer.setLocalDescription(await answerer.createAnswer());
  await gatheringComplete(answerer, 5000);
  const upCounts = impairReceive(answerer, up, new LinkRandom(seed, index, 1));
  await offerer.setRemoteDescription(answerer.localDescription!);
  return { offerer, answerer, down: downCounts, up: upCounts };
}

/** Resolves with the ms from now until `pc` is connected, or null after `timeoutMs` or on failure. */
export function connectedWithin(pc: RTCPeerConnection, timeoutMs: number): Promise<number | null> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    if (pc.connectionState === "connected") return resolve(0);
    const timer = setTimeout(() => {
      sub.unSubscribe();
      resolve(null);
    }, timeoutMs);
    const sub = pc.connectionStateChange.subscribe((s) => {
      if (s === "connected" || s === "failed" || s === "closed") {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve(s === "connected" ? performance.now() - t0 : null);
      }
    });
  });
}
