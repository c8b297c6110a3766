// bench/peer-pair.ts's werift pair (the tests of how datagrams reach werift): the viewer offers
// (its DTLS is the server), the sending server answers (the DTLS client) and sends its flight 5
// twice back to back, as a slow server does when it answers a retransmitted flight 4 twice.
import { exchange, newPair } from "../../bench/peer-pair.ts";
import type { RTCPeerConnection } from "../../src/net/werift/api.ts";

/** Makes `pc`'s DTLS client send its flight 5 twice: the whole flight, then the whole flight again. */
function twiceFlight5(pc: RTCPeerConnection): void {
  type Send = (b: Buffer, a?: unknown) => unknown;
  type Dtls = { dtls?: { transport: { send: Send } }; start(): unknown };
  for (const d of (pc as unknown as { dtlsTransports: Dtls[] }).dtlsTransports) {
    const start = d.start.bind(d);
    d.start = () => {
      const started = start();
      const ctx = d.dtls?.transport;
      if (ctx !== undefined) {
        const send = ctx.send;
        const flight: [Buffer, unknown][] = [];
        ctx.send = (b, a) => {
          const sent = send(b, a);
          // Certificate, ClientKeyExchange, CertificateVerify (epoch 0), ChangeCipherSpec, Finished (epoch 1)
          const epoch = b.readUInt16BE(3);
          if ((b[0] === 22 && [11, 15, 16].includes(b[13]!)) || b[0] === 20) flight.push([b, a]);
          else if (b[0] === 22 && epoch === 1 && flight.length > 0) {
            for (const [x, y] of flight.splice(0)) send(x, y);
            send(b, a);
          }
          return sent;
        };
      }
      return started;
    };
  }
}

function connected(pc: RTCPeerConnection, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (pc.connectionState === "connected") return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    pc.connectionStateChange.subscribe((s) => {
      if (s === "connected") {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
}

/**
 * Connects a viewer and a server whose DTLS client sends flight 5 twice; `gathered` runs on the
 * viewer's peer after its transceiver is added (before gathering: true) and after it gathered
 * (false). Resolves whether each side connected within `ms`, viewer first.
 */
export async function pairWithTwiceFlight5(
  gathered: (pc: RTCPeerConnection, before: boolean) => void,
  ms = 5000,
): Promise<[boolean, boolean]> {
  const { server, viewer } = newPair();
  try {
    const both = Promise.all([connected(viewer, ms), connected(server, ms)]);
    await exchange(server, viewer, {
      viewerBeforeGathering: (pc) => gathered(pc, true),
      viewerGathered: (pc) => gathered(pc, false),
      serverAnswered: twiceFlight5,
    });
    return await both;
  } finally {
    await viewer.close().catch(() => {});
    await server.close().catch(() => {});
  }
}
