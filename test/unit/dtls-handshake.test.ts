// werift's DTLS handshake with the mends of src/net/werift/dtls-order.ts and dtls-flights.ts
// (docs/definitions.md#dtls-handshake), on real werift pairs over 127.0.0.1 through the seeded link of
// bench/impaired-link.ts: the offerer is DTLS server as our viewers are, the answerer DTLS client as
// the built-in relay is. werift's own handshake fails over a reordering link; the mended one joins
// over reordering, loss and duplication in both directions, reassembles fragments that arrive in
// any order, and answers a client that lost the final flight.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectedWithin, type Impairment, impairedPair } from "../../bench/impaired-link.ts";
import type { RTCPeerConnection } from "../../src/net/werift/api.ts";
import {
  DTLS_RTO_CAP_MS,
  DTLS_RTO_UNKNOWN_MS,
  initialRtoMs,
  rtoSequenceMs,
} from "../../src/net/werift/dtls-flights.ts";
import { mends } from "../../src/net/werift/dtls-order.ts";
import { abandonDtls, patchWerift } from "../../src/net/werift/patches.ts";
import { peerUdpTransports, type UdpReceive, wrapReceive } from "../../src/net/werift/transports.ts";

patchWerift();

const REORDER: Impairment = { delayMs: 20, jitterMs: 5 };

/** Both peers closed, their handshake retransmissions ended as the viewers' close ends them. */
async function closePair(p: { offerer: RTCPeerConnection; answerer: RTCPeerConnection }): Promise<void> {
  for (const pc of [p.offerer, p.answerer]) {
    abandonDtls(pc);
    await pc.close().catch(() => {});
  }
}

/** `count` pairs at once over `down`/`up`; how many had both sides connected within `ms`. */
async function joins(
  count: number,
  down: Impairment,
  up: Impairment,
  seed: number,
  ms: number,
): Promise<number> {
  const one = async (i: number): Promise<boolean> => {
    const p = await impairedPair(down, up, seed, i);
    try {
      const [a, b] = await Promise.all([connectedWithin(p.offerer, ms), connectedWithin(p.answerer, ms)]);
      return a !== null && b !== null;
    } finally {
      await closePair(p);
    }
  };
  const results = await Promise.all(Array.from({ length: count }, (_, i) => one(i)));
  return results.filter(Boolean).length;
}

test("the retransmission timer: twice the ICE round trip within 100 ms..1 s, doubling to 3 s, 1 s unknown", () => {
  assert.equal(initialRtoMs(undefined), DTLS_RTO_UNKNOWN_MS);
  assert.equal(initialRtoMs(0.0004), 100);
  assert.equal(initialRtoMs(0.15), 300);
  assert.equal(initialRtoMs(2), 1000);
  const waits = rtoSequenceMs(100);
  assert.deepEqual(waits.slice(0, 7), [100, 200, 400, 800, 1600, 3000, 3000]);
  assert.ok(waits.every((w) => w <= DTLS_RTO_CAP_MS));
});

test("werift's own handshake over 20 ms ± 5 ms jitter that reorders (server side): most pairs never connect", async () => {
  mends.on = false;
  try {
    const joined = await joins(6, REORDER, {}, 11, 3000);
    assert.ok(joined <= 2, `${joined} of 6 joined without the mends (measured 0 of 6 here)`);
  } finally {
    mends.on = true;
  }
});

test("mended: 20 of 20 over 20 ms ± 5 ms reordering jitter in both directions", async () => {
  assert.equal(await joins(10, REORDER, REORDER, 21, 8000), 10);
  assert.equal(await joins(10, REORDER, REORDER, 22, 8000), 10);
});

test("mended: 20 of 20 over 10 % random loss in both directions", async () => {
  const loss = { loss: 0.1 };
  assert.equal(await joins(10, loss, loss, 31, 8000), 10);
  assert.equal(await joins(10, loss, loss, 32, 8000), 10);
});

test("mended: 10 of 10 over reordering, 10 % loss and 20 % duplication in both directions", async () => {
  const mix = { delayMs: 20, jitterMs: 5, loss: 0.1, duplicate: 0.2 };
  assert.equal(await joins(10, mix, mix, 41, 8000), 10);
});

/** The DTLS handshake records `pc` reads: each split into 3 fragments delivered last first. */
function fragmentBackwards(pc: RTCPeerConnection): { split: number } {
  const seen = { split: 0 };
  for (const t of peerUdpTransports(pc)) {
    wrapReceive(
      t,
      (own: UdpReceive): UdpReceive =>
        (data, addr) => {
          // a lone epoch-0 handshake record with an unfragmented message of at least 3 body bytes
          const single = data.length >= 25 && data[0] === 22 && data.readUInt16BE(3) === 0;
          const bodyLength = single ? data.readUIntBE(14, 3) : 0;
          if (
            !single ||
            data.readUInt16BE(11) !== data.length - 13 ||
            bodyLength < 3 ||
            data.readUIntBE(22, 3) !== bodyLength
          ) {
            own(data, addr);
            return;
          }
          seen.split++;
          const cuts = [0, Math.floor(bodyLength / 3), Math.floor((2 * bodyLength) / 3), bodyLength];
          for (let k = 2; k >= 0; k--) {
            const start = cuts[k]!;
            const end = cuts[k + 1]!;
            const rec = Buffer.concat([data.subarray(0, 25), data.subarray(25 + start, 25 + end)]);
            rec.writeUInt16BE(12 + end - start, 11); // record length
            rec.writeUIntBE(start, 19, 3); // fragment_offset
            rec.writeUIntBE(end - start, 22, 3); // fragment_length
            setTimeout(() => own(rec, addr), 3 - k);
          }
        },
    );
  }
  return seen;
}

test("mended: handshake messages split into fragments that arrive last first are reassembled (both roles)", async () => {
  const p = await impairedPair({}, {}, 51, 0);
  const toServer = fragmentBackwards(p.offerer);
  const toClient = fragmentBackwards(p.answerer);
  try {
    const [a, b] = await Promise.all([connectedWithin(p.offerer, 8000), connectedWithin(p.answerer, 8000)]);
    assert.ok(a !== null && b !== null, "both sides connected");
    assert.ok(
      toServer.split >= 4,
      `the server reassembled ${toServer.split} messages (ClientHello ×2, flight 5)`,
    );
    assert.ok(toClient.split >= 5, `the client reassembled ${toClient.split} messages (flight 4)`);
  } finally {
    await closePair(p);
  }
});

test("mended: a client that lost the server's final flight gets it again once the server has connected", async () => {
  const p = await impairedPair({}, {}, 61, 0);
  let dropped = 0;
  for (const t of peerUdpTransports(p.answerer)) {
    wrapReceive(
      t,
      (own: UdpReceive): UdpReceive =>
        (data, addr) => {
          // the server's first ChangeCipherSpec and Finished (epoch 1) toward the client: lost
          const finalFlight = data[0] === 20 || (data[0] === 22 && data.readUInt16BE(3) === 1);
          if (finalFlight && dropped < 2) {
            dropped++;
            return;
          }
          own(data, addr);
        },
    );
  }
  try {
    const [a, b] = await Promise.all([connectedWithin(p.offerer, 8000), connectedWithin(p.answerer, 8000)]);
    assert.equal(dropped, 2, "the final flight was lost once");
    assert.ok(a !== null, "the server connected");
    assert.ok(b !== null, "the client connected with the server's answer to its retransmitted flight 5");
  } finally {
    await closePair(p);
  }
});
