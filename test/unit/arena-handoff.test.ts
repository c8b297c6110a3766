// The arena reader hands what is not media (STUN, DTLS) to werift as libuv would: each datagram
// in a macrotask of its own, in arrival order, so werift's promises settle between two of them
// (src/workers/receive/arena-reader.ts). Why it matters: a
// werift DTLS server given the client's flight 5 twice in one synchronous run derives its keys
// again over the wrong transcript and the client never connects; here a real pair of werift
// peers, the viewer's ICE on the thread's shared socket and the client sending flight 5 twice
// back to back (as a slow server does when it answers a retransmitted flight 4 twice), connects.
import assert from "node:assert/strict";
import type { Socket } from "node:dgram";
import { test } from "node:test";

import { provideShared, SharedSocket } from "../../src/workers/receive/socket-sharing.ts";
import { viewerThread } from "../../src/workers/thread.ts";
import { bound, sleep, stage } from "./udp-helpers.ts";
import { pairWithTwiceFlight5 } from "./werift-pair.ts";

/** This thread's context (../../src/workers/thread.ts): what the receive side shares. */
const thread = viewerThread();
const intake = thread.intake;
const arenaReader = () => thread.arena();

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
    stage(() => assert.fail("no media was sent")),
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

test("a werift DTLS server on the shared socket that gets flight 5 twice at once: both sides connect", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const r = reader();
  const hub = await SharedSocket.open("127.0.0.1", () => {});
  const remove = r.addShared(hub.socket, hub);
  if (typeof remove === "string") assert.fail(remove);
  try {
    let provided = false;
    const both = await pairWithTwiceFlight5((pc, before) => {
      if (before) provided = provideShared(pc, hub);
    });
    assert.ok(provided, "the viewer's ICE took the shared socket");
    assert.deepEqual(both, [true, true], "viewer and server connected");
  } finally {
    remove();
    hub.close();
  }
});
