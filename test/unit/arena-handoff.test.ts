// The arena reader hands what is not media (STUN, DTLS) to werift as libuv would: each datagram
// in a macrotask of its own, in arrival order, so werift's promises settle between two of them
// (src/workers/arena-reader.ts). Why it matters: a
// werift DTLS server given the client's flight 5 twice in one synchronous run derives its keys
// again over the wrong transcript and the client never connects; here a real pair of werift
// peers, the viewer's ICE on the thread's shared socket and the client sending flight 5 twice
// back to back (as a slow server does when it answers a retransmitted flight 4 twice), connects.
import assert from "node:assert/strict";
import type { Socket } from "node:dgram";
import { test } from "node:test";
import { gatheringComplete, newPeer, videoCodecs } from "../../src/net/rtc.ts";
import type { RTCPeerConnection } from "../../src/net/werift/api.ts";
import { arenaReader } from "../../src/workers/arena-reader.ts";
import { intake } from "../../src/workers/intake.ts";
import { provideShared, SharedSocket } from "../../src/workers/shared-socket.ts";
import { bound, sleep } from "./udp-helpers.ts";

const linux = process.platform === "linux";

function reader() {
  intake.beginRun("kernel");
  const r = arenaReader();
  if (typeof r === "string") assert.fail(r);
  return r;
}

/** Sends `n` datagrams that are not media (first byte 0..3, a STUN-like header) back to back. */
function sendBurst(from: Socket, to: number, n: number): void {
  for (let i = 0; i < n; i++) from.send(Buffer.from([0, 1, i, 0]), to, "127.0.0.1");
}

test("datagrams that are not media reach werift one macrotask each, in arrival order", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const r = reader();
  const viewer = await bound();
  const server = await bound();
  const order: string[] = [];
  const remove = r.add(
    viewer,
    () => assert.fail("no media was sent"),
    (data) => {
      const i = data[2];
      order.push(`call ${i}`);
      // what werift's handler leaves to its promises must run before the next datagram
      queueMicrotask(() => order.push(`settled ${i}`));
    },
  );
  if (typeof remove === "string") assert.fail(remove);
  try {
    sendBurst(server, viewer.address().port, 4);
    for (let i = 0; i < 100 && order.length < 8; i++) await sleep(5);
    assert.deepEqual(
      order,
      [0, 1, 2, 3].flatMap((i) => [`call ${i}`, `settled ${i}`]),
    );
  } finally {
    remove();
    viewer.close();
    server.close();
  }
});

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

test("a werift DTLS server on the shared socket that gets flight 5 twice at once: both sides connect", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const r = reader();
  const hub = await SharedSocket.open("127.0.0.1", () => {});
  const remove = r.addShared(hub.socket, hub);
  if (typeof remove === "string") assert.fail(remove);
  const ice = { loopbackOnly: true, includeLoopback: false };
  const viewer = newPeer(ice, videoCodecs("viewer"));
  const server = newPeer(ice, videoCodecs("vp8"));
  try {
    viewer.addTransceiver("video", { direction: "recvonly" });
    assert.ok(provideShared(viewer, hub), "the viewer's ICE takes the shared socket");
    await viewer.setLocalDescription(await viewer.createOffer());
    await gatheringComplete(viewer, 3000);
    await server.setRemoteDescription(viewer.localDescription!);
    server.getTransceivers()[0]!.setDirection("sendonly");
    await server.setLocalDescription(await server.createAnswer());
    await gatheringComplete(server, 3000);
    twiceFlight5(server);
    const both = Promise.all([connected(viewer, 5000), connected(server, 5000)]);
    await viewer.setRemoteDescription(server.localDescription!);
    assert.deepEqual(await both, [true, true], "viewer and server connected");
    assert.equal(hub.members, 1);
  } finally {
    await viewer.close().catch(() => {});
    await server.close().catch(() => {});
    remove();
    hub.close();
  }
});
