// A viewer's receiver reports as each profile sends them (src/workers/receive/receiver-reports.ts,
// docs/definitions.md#nacks): the browser profile's as libwebrtc M106's — an RR with no SDES
// before each NACK (48 bytes with one NACK item, as Janus parsed libwebrtc's) and each such
// compound drawing the periodic report afresh, so under steady loss few reports go alone — and the
// minimal profile's as the earlier viewer's (RR + SDES, 76 bytes; periodic reports on their own draw).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type GenericNack,
  RtcpPacketConverter,
  RtcpRrPacket,
  RtcpSourceDescriptionPacket,
  RtcpTransportLayerFeedback,
} from "werift";
import { monoNs } from "../../src/core/clock/clock.ts";
import { NackGenerator } from "../../src/workers/receive/nack.ts";
import { NackSender } from "../../src/workers/receive/nack-sender.ts";
import { ReceiverReports } from "../../src/workers/receive/receiver-reports.ts";
import { ReceptionStats } from "../../src/workers/receive/reception.ts";
import { SharedTick } from "../../src/workers/timers.ts";

const MS = 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A NACK compound of a viewer with `browser`'s reports, after packets 0 and 2 (1 missing). */
function nackCompound(browser: boolean): Buffer[] {
  const tick = new SharedTick(10);
  const stats = new ReceptionStats(90_000);
  const sent: Buffer[] = [];
  const reports = new ReceiverReports(stats, (b) => sent.push(b), 0x11, { browser }, tick);
  const nack = new NackSender(
    new NackGenerator(),
    (b) => sent.push(b),
    0x11,
    () => {},
    () => null,
    () => {},
    reports.head,
  );
  for (const seq of [0, 2]) {
    stats.onPacket(0x22, seq, seq * 3000, monoNs());
    nack.onPacket(0x22, seq, monoNs());
  }
  nack.close();
  reports.close();
  return sent;
}

test("browser profile: a NACK leads with an RR and no SDES, 48 bytes with one item (libwebrtc's)", () => {
  const sent = nackCompound(true);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.length, 48, "RR with one block (32) + NACK with one item (16)");
  const parts = RtcpPacketConverter.deSerialize(sent[0]!);
  assert.equal(parts.length, 2);
  assert.ok(parts[0] instanceof RtcpRrPacket);
  assert.equal(parts[0].reports[0]?.ssrc, 0x22);
  assert.ok(parts[1] instanceof RtcpTransportLayerFeedback);
  assert.deepEqual([...(parts[1].feedback as GenericNack).lost], [1]);
});

test("minimal profile: a NACK leads with RR and SDES (CNAME), 76 bytes with one item (the earlier viewer)", () => {
  const sent = nackCompound(false);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.length, 76, "RR (32) + SDES with a 16-character CNAME (28) + NACK (16)");
  const parts = RtcpPacketConverter.deSerialize(sent[0]!);
  assert.equal(parts.length, 3);
  assert.ok(parts[1] instanceof RtcpSourceDescriptionPacket);
  assert.equal(parts[1].chunks[0]?.items[0]?.text.length, 16);
});

test("browser profile: a compound head draws the periodic report's instant afresh, 0.5–1.5 × from then", () => {
  const tick = new SharedTick(10);
  const stats = new ReceptionStats(90_000);
  stats.onPacket(0x22, 0, 0, monoNs());
  const grid = 100 * MS;
  for (const browser of [true, false]) {
    const r = new ReceiverReports(stats, () => {}, 0x11, { browser, minMs: 5_000, maxMs: 15_000 }, tick);
    const first = r.dueNs;
    // 20 heads: the first instant is redrawn each time on the browser profile (never on minimal)
    const dues = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const before = monoNs();
      r.head();
      const after = monoNs();
      dues.add(r.dueNs);
      if (!browser) continue;
      assert.ok(r.dueNs >= before + 5_000 * MS - grid / 2, "drawn under 0.5 × after the head");
      assert.ok(r.dueNs <= after + 15_000 * MS + grid / 2, "drawn over 1.5 × after the head");
    }
    if (browser) assert.ok(dues.size > 1, "the instant was not drawn again");
    else assert.deepEqual([...dues], [first]);
    r.close();
  }
  assert.equal(tick.armed, false);
});

/**
 * `browser`'s reports with a compound head every 20 ms for 1.2 s (a NACK under steady loss), the
 * periodic reports drawn from 200–400 ms: the standalone reports sent, and for each the ms since
 * the last head before it.
 */
async function lossyStream(browser: boolean): Promise<{ alone: number; sinceHeadMs: number[] }> {
  const tick = new SharedTick(10);
  const stats = new ReceptionStats(90_000);
  stats.onPacket(0x22, 0, 0, monoNs());
  let lastHeadNs = monoNs();
  const sinceHeadMs: number[] = [];
  const r = new ReceiverReports(
    stats,
    () => sinceHeadMs.push((monoNs() - lastHeadNs) / MS),
    0x11,
    { browser, minMs: 200, maxMs: 400, gridMs: 10 },
    tick,
  );
  const endNs = monoNs() + 1_200 * MS;
  while (monoNs() < endNs) {
    await sleep(20);
    r.head();
    lastHeadNs = monoNs();
  }
  r.close();
  return { alone: r.alone, sinceHeadMs };
}

test("under steady loss the browser profile sends no lone report while compounds keep coming; minimal does", async () => {
  const browser = await lossyStream(true);
  const minimal = await lossyStream(false);
  // 1.2 s at 200–400 ms: 3–6 periodic reports on minimal, whatever the heads
  assert.ok(minimal.alone >= 3, `minimal sent ${minimal.alone} lone reports`);
  // browser: a lone report only where the loop left a gap of 200 ms or more between two heads
  for (const ms of browser.sinceHeadMs) assert.ok(ms >= 195, `a lone report ${ms} ms after a compound`);
  assert.ok(browser.alone < minimal.alone, `browser ${browser.alone}, minimal ${minimal.alone}`);
});
