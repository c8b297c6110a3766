// The publisher's send instant from the kernel (docs/definitions.md#send-instant) against ground
// truth: the built-in relay runs in this process and takes each publisher datagram's kernel
// receive stamp, on the same monotonic clock. Where the kernel's transmit stamps can be had, the
// report names them (client.sendStampSource), nearly every frame has one, and the relay's receive
// of a frame's first packet follows its logged send instant by the loopback's delivery alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { normaliseScenario, validateScenario } from "../../src/core/scenario-file/scenario.ts";
import { exactSummary } from "../../src/core/stats/summaries.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { run } from "../../src/main/run/runner.ts";
import { isRtpDatagram } from "../../src/net/send-stamp.ts";
import { txStamps } from "../../src/net/tx-stamp.ts";

/**
 * Each kernel-stamped frame's relay receive − t0, ms: frame k's RTP timestamp is the publisher's
 * random base + k · 3000 (30 fps), the base the one of the first received timestamps (less a few
 * frames the relay may have missed) that pairs the most frames within a few ms.
 */
function pairByTimestamp(
  sent: { k: number; t0: number; kernel: boolean }[],
  recv: Map<number, number>,
): number[] {
  let best: number[] = [];
  for (const first of [...recv.keys()].slice(0, 5)) {
    for (let j = 0; j < 5; j++) {
      const base = (first - j * 3000) >>> 0;
      const d: number[] = [];
      for (const e of sent) {
        const at = recv.get((base + e.k * 3000) >>> 0);
        if (e.kernel && at !== undefined && Math.abs(at - e.t0) < 5e6) d.push((at - e.t0) / 1e6);
      }
      if (d.length > best.length) best = d;
    }
  }
  return best;
}

test("kernel send stamps: named in the report, and each frame's t0 is its first packet's transmit stamp", async (t) => {
  const a = txStamps();
  if (!a.ok) return t.skip(a.reason);
  const recv = new Map<number, number>();
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: true },
    test: {
      taps: {
        publisherReceive(d, now) {
          if (isRtpDatagram(d) && !recv.has(d.readUInt32BE(4))) recv.set(d.readUInt32BE(4), now);
        },
        legSend() {},
      },
    },
  });
  const url = await relay.listen("127.0.0.1", 0);
  const sent: { k: number; t0: number; kernel: boolean }[] = [];
  try {
    const s = normaliseScenario({
      name: "send-stamp",
      whip: `${url}/s/whip`,
      whep: `${url}/s/whep`,
      codec: "vp8",
      viewers: 2,
      rampSeconds: 1,
      holdSeconds: 4,
      warmupSeconds: 1,
      excludeFirstSeconds: 1,
      loopbackOnly: true,
    });
    validateScenario(s);
    const input = await run({
      command: "run",
      scenario: s,
      bearer: undefined,
      engine: inThreadEngine(),
      log: memoryLogger(),
      interrupt: new AbortController().signal,
      onFrameSent: (k, t0, _i, kernel) => sent.push({ k, t0, kernel }),
    });
    const r = buildReport(input);
    const c = r.client;
    assert.ok(c.sendStamps !== undefined, "the report carries client.sendStamps");
    assert.ok(c.sendStampSource === "kernel" || c.sendStampSource === "mixed", c.sendStampSource);
    const total = c.sendStamps.kernel + c.sendStamps.handover;
    assert.equal(total, sent.length, "every frame is counted once");
    // the first frames may go before the stamps are on, the last may end the run unread
    assert.ok(c.sendStamps.kernel >= 0.9 * total, JSON.stringify(c.sendStamps));
    assert.deepEqual(
      sent.map((e) => e.kernel).filter(Boolean).length,
      c.sendStamps.kernel,
      "the channel's entries say which were the kernel's",
    );
    // the relay's kernel receive stamp of a frame's first packet − its logged send instant: the
    // loopback's delivery (a few µs), never negative beyond the clock conversion's error
    const d = pairByTimestamp(sent, recv);
    assert.ok(d.length >= 0.8 * c.sendStamps.kernel, `${d.length} frames paired with the relay's receive`);
    const q = exactSummary(d);
    assert.ok(q.min >= -0.01, `relay receive − t0 min ${q.min} ms`);
    assert.ok(q.p50 <= 0.1, `relay receive − t0 p50 ${q.p50} ms`);
  } finally {
    await relay.close();
  }
});
