// The relay's --capacity knee (src/main/relay/capacity.ts) through forward(): over capacity every
// leg loses every 20th packet it is offered before its RTP sender sees it; at capacity none.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpHeader, RtpPacket } from "werift";
import { CAPACITY_DROP_EVERY, CapacityGate } from "../../src/main/relay/capacity.ts";
import { forward, type Stream } from "../../src/main/relay/forward.ts";
import type { Leg } from "../../src/main/relay/leg.ts";
import type { RelayOptions } from "../../src/main/relay/options.ts";

/** A leg whose sender records the sequence numbers it was given. */
function fakeLeg(): { leg: Leg; sent: number[] } {
  const sent: number[] = [];
  const sender = {
    sendRtp: (p: RtpPacket) => {
      sent.push(p.header.sequenceNumber);
      return Promise.resolve();
    },
  };
  const leg = { tr: { sender } as unknown as Leg["tr"], absId: 0, sending: true, forwarded: 0, feedback: 0 };
  return { leg, sent };
}

function stream(legs: Leg[]): Stream {
  return { publisher: null, codec: "vp8", ready: true, readyWaiters: [], legs: new Set(legs), attempts: 0 };
}

const OPTS: RelayOptions = { ice: { loopbackOnly: true, includeLoopback: false } };

function send(s: Stream, gate: CapacityGate, from: number, count: number): void {
  for (let seq = from; seq < from + count; seq++) {
    const header = new RtpHeader({ sequenceNumber: seq, timestamp: seq * 3000, payloadType: 96 });
    forward(s, new RtpPacket(header, Buffer.alloc(4)), undefined, OPTS, gate);
  }
}

test("at capacity nothing is dropped; over it, every leg loses every 20th packet; back at it, none", () => {
  const legs = [fakeLeg(), fakeLeg(), fakeLeg(), fakeLeg()];
  const s = stream(legs.slice(0, 3).map((l) => l.leg));
  const gate = new CapacityGate(3, new Map([["s", s]]));
  assert.equal(CAPACITY_DROP_EVERY, 20);
  send(s, gate, 0, 100);
  for (const l of legs.slice(0, 3)) assert.equal(l.sent.length, 100, "3 legs, capacity 3: no drop");

  s.legs.add(legs[3]!.leg);
  assert.equal(gate.legs(), 4);
  send(s, gate, 100, 200);
  for (const l of legs) {
    const over = l.sent.filter((q) => q >= 100);
    assert.equal(over.length, 190, "10 of 200 dropped");
    const missing = [...Array(200).keys()].map((i) => 100 + i).filter((q) => !over.includes(q));
    assert.deepEqual(missing, [119, 139, 159, 179, 199, 219, 239, 259, 279, 299]);
  }

  s.legs.delete(legs[3]!.leg); // its DELETE: back at capacity
  send(s, gate, 300, 100);
  for (const l of legs.slice(0, 3)) assert.equal(l.sent.filter((q) => q >= 300).length, 100);
});

test("legs are counted over every stream of the relay", () => {
  const a = stream([fakeLeg().leg, fakeLeg().leg]);
  const b = stream([fakeLeg().leg]);
  const streams = new Map([
    ["a", a],
    ["b", b],
  ]);
  const gate = new CapacityGate(2, streams);
  assert.equal(gate.legs(), 3);
  assert.equal(gate.over(), true);
  b.legs.clear();
  assert.equal(gate.over(), false);
});
