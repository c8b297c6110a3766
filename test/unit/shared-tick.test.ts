// The thread's shared feedback tick (src/workers/timers.ts SharedTick): one timer for many
// viewers, each run at its own grid instant (never more than 1 ms early), those due together in
// one pass; a closed viewer leaves it and the timer stops with the last. Through TwccSender too,
// and ReceiverReports on their coarser grid.
import assert from "node:assert/strict";
import { test } from "node:test";
import { monoNs } from "../../src/core/clock/clock.ts";
import { REPORT_GRID_MS, ReceiverReports } from "../../src/workers/receive/receiver-reports.ts";
import { ReceptionStats } from "../../src/workers/receive/reception.ts";
import { TwccSender } from "../../src/workers/receive/twcc-sender.ts";
import { SharedTick, type TickMember } from "../../src/workers/timers.ts";

const GRID_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A member every `intervalMs`, recording the instant it was due and the pass's clock each time. */
function member(tick: SharedTick, intervalMs: number, firstMs: number) {
  const runs: { dueNs: number; nowNs: number }[] = [];
  const m: TickMember = {
    dueNs: tick.after(monoNs(), firstMs * 1e6),
    tickSlot: -1,
    onTick(nowNs) {
      runs.push({ dueNs: m.dueNs, nowNs });
      m.dueNs = tick.after(nowNs, intervalMs * 1e6);
    },
  };
  return { m, runs };
}

test("each member runs at its own grid instant, never over 1 ms early; those due together in one pass", async () => {
  const tick = new SharedTick(GRID_MS);
  const g = GRID_MS * 1e6;
  const a = member(tick, 30, 20);
  const b = member(tick, 50, 20);
  b.m.dueNs = a.m.dueNs; // the same first instant as a: the same pass
  const c = member(tick, 40, 35);
  for (const x of [a, b, c]) tick.join(x.m);
  assert.equal(tick.size, 3);
  assert.ok(tick.armed);
  await sleep(400);
  for (const [name, x, interval] of [
    ["a", a, 30],
    ["b", b, 50],
    ["c", c, 40],
  ] as const) {
    assert.ok(x.runs.length >= 2, `${name} ran ${x.runs.length} times in 400 ms`);
    for (const r of x.runs) {
      assert.equal(r.dueNs % g, 0, `${name}: an instant off the ${GRID_MS} ms grid`);
      assert.ok(r.nowNs >= r.dueNs - 1e6, `${name} ran ${(r.dueNs - r.nowNs) / 1e6} ms early`);
    }
    // the next instant is one interval after the run, to the nearest grid instant
    for (let i = 1; i < x.runs.length; i++) {
      const want = Math.round((x.runs[i - 1]!.nowNs + interval * 1e6) / g) * g;
      assert.equal(x.runs[i]!.dueNs, want, `${name}: run ${i} not at its interval`);
    }
  }
  assert.equal(a.runs[0]!.nowNs, b.runs[0]!.nowNs, "a and b were due at one instant: one pass runs both");
  for (const x of [a, b, c]) tick.leave(x.m);
});

test("a member that leaves runs no more; the last to leave stops the timer", async () => {
  const tick = new SharedTick(GRID_MS);
  const a = member(tick, 20, 10);
  const b = member(tick, 20, 10);
  tick.join(a.m);
  tick.join(b.m);
  tick.join(a.m); // again: still one place
  assert.equal(tick.size, 2);
  await sleep(60);
  tick.leave(a.m);
  assert.equal(a.m.tickSlot, -1);
  const aRuns = a.runs.length;
  const bRuns = b.runs.length;
  assert.ok(aRuns >= 1 && bRuns >= 1, `runs before leaving: a ${aRuns}, b ${bRuns}`);
  assert.equal(tick.size, 1);
  assert.ok(tick.armed, "b is still a member");
  await sleep(60);
  assert.equal(a.runs.length, aRuns, "a ran after it left");
  assert.ok(b.runs.length > bRuns, "b stopped running when a left");
  tick.leave(b.m);
  tick.leave(b.m); // again: nothing
  assert.equal(tick.size, 0);
  assert.equal(tick.armed, false, "the timer outlived its last member");
});

test("TwccSenders on one tick: one message an interval, phases kept; a closed one leaves", async () => {
  const tick = new SharedTick(GRID_MS);
  /** each message's instant and the instant it was due */
  const sent: { atNs: number; dueNs: number }[][] = [[], [], []];
  const senders: TwccSender[] = sent.map(
    (s, i) =>
      new TwccSender(
        () => s.push({ atNs: monoNs(), dueNs: senders[i]!.dueNs }),
        0x1000 + i,
        () => {},
        () => {},
        30,
        tick,
      ),
  );
  assert.equal(tick.size, 0, "no packet yet: not a member");
  let seq = 0;
  const feed = setInterval(() => {
    for (const s of senders) s.onPacket(seq, monoNs());
    seq++;
  }, 5);
  await sleep(200);
  assert.equal(tick.size, 3);
  senders[0]!.close();
  assert.equal(tick.size, 2);
  const closedCount = sent[0]!.length;
  await sleep(100);
  clearInterval(feed);
  assert.equal(sent[0]!.length, closedCount, "a closed sender sent");
  for (const [i, s] of sent.entries()) {
    assert.ok(s.length >= 3, `sender ${i} sent ${s.length} messages`);
    assert.equal(senders[i]!.messages, s.length);
    for (const [k, m] of s.entries()) {
      assert.equal(m.dueNs % (GRID_MS * 1e6), 0, `sender ${i}: an instant off the grid`);
      assert.ok(m.atNs >= m.dueNs - 1e6, `sender ${i} sent ${(m.dueNs - m.atNs) / 1e6} ms early`);
      // 30 ms after the last instant: a late pass does not move the phase (unless 30 ms late)
      const last = s[k - 1];
      if (last !== undefined && last.atNs - last.dueNs < 30e6) assert.equal(m.dueNs - last.dueNs, 30e6);
    }
  }
  for (const s of senders) s.close();
  assert.equal(tick.armed, false);
});

test("receiver reports on the report grid: not early, and a thread's reports share passes", async () => {
  const tick = new SharedTick(GRID_MS);
  const grid = REPORT_GRID_MS * 1e6;
  const sent: { atNs: number; dueNs: number }[] = [];
  const reports: ReceiverReports[] = [];
  for (let i = 0; i < 12; i++) {
    const stats = new ReceptionStats(90_000);
    stats.onPacket(0x2000 + i, 1, 0, monoNs());
    const rr: ReceiverReports = new ReceiverReports(
      stats,
      () => sent.push({ atNs: monoNs(), dueNs: rr.dueNs }),
      0x3000 + i,
      { minMs: 100, maxMs: 300 },
      tick,
    );
    assert.equal(rr.dueNs % grid, 0, "the first instant is off the report grid");
    reports.push(rr);
  }
  await sleep(700);
  for (const r of reports) r.close();
  assert.equal(tick.armed, false);
  // 12 reports every 100–300 ms over 700 ms: ≥ 2 each on average, on ≤ 7 grid instants
  assert.ok(sent.length >= 24, `${sent.length} reports sent`);
  for (const m of sent) {
    assert.equal(m.dueNs % grid, 0, "an instant off the report grid");
    assert.ok(m.atNs >= m.dueNs - 1e6, `sent ${(m.dueNs - m.atNs) / 1e6} ms early`);
  }
  const passes = new Set(sent.map((m) => m.dueNs)).size;
  assert.ok(passes <= 8, `${sent.length} reports took ${passes} grid instants`);
});
