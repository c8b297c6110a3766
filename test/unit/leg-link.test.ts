// The built-in relay's per-leg link (src/core/link/leg-link.ts), pure: the share and the bursts
// of its loss, the distribution of its delay and how often it reorders, duplication, the start
// delay, the split by kind of datagram, and that the n-th datagram's fate depends only on the seed
// and the leg.
import assert from "node:assert/strict";
import { test } from "node:test";
import { burstChances, LegLink, type LegLinkProfile } from "../../src/core/link/leg-link.ts";

const MS = 1e6;
const NONE: LegLinkProfile = { loss: 0, delayNs: 0, jitterNs: 0, duplicate: 0, afterNs: 0, seed: 0 };
const SRTP = 0x80;
const STUN = 0x00;
const DTLS = 22;

/** The fates of `n` datagrams 1 ms apart: copies and instants (ns after the datagram's send). */
function fates(
  p: Partial<LegLinkProfile>,
  n: number,
  leg = 1,
  first = SRTP,
): { copies: number; addedNs: number[] }[] {
  const l = new LegLink({ ...NONE, ...p }, leg);
  const out = new Float64Array(2);
  const r: { copies: number; addedNs: number[] }[] = [];
  for (let i = 0; i < n; i++) {
    const now = 1e9 + i * MS;
    const copies = l.decide(first, now, out);
    r.push({ copies, addedNs: Array.from(out.subarray(0, copies), (x) => x - now) });
  }
  return r;
}

test("random loss takes its share, and the n-th datagram's fate depends only on the seed and the leg", () => {
  const a = fates({ loss: 0.05, seed: 3 }, 40000);
  const lost = a.filter((f) => f.copies === 0).length;
  assert.ok(Math.abs(lost / 40000 - 0.05) < 0.005, `${lost} lost`);
  assert.deepEqual(fates({ loss: 0.05, seed: 3 }, 40000), a);
  assert.notDeepEqual(fates({ loss: 0.05, seed: 4 }, 40000), a);
  assert.notDeepEqual(fates({ loss: 0.05, seed: 3 }, 40000, 2), a);
  // independent: runs of losses as short as chance makes them (mean run ≈ 1 / (1 − p))
  const runs = lossRuns(a);
  assert.ok(mean(runs) < 1.2, `mean run ${mean(runs)}`);
});

function lossRuns(f: { copies: number }[]): number[] {
  const runs: number[] = [];
  let run = 0;
  for (const x of f) {
    if (x.copies === 0) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  return runs;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

test("burst loss: Gilbert–Elliott with the asked mean burst and long-run loss", () => {
  assert.deepEqual(burstChances(0.05, 10), { enter: (0.05 * 0.1) / 0.95, leave: 0.1 });
  const a = fates({ loss: 0.05, burstDatagrams: 10, seed: 9 }, 200000);
  const lost = a.filter((f) => f.copies === 0).length;
  assert.ok(Math.abs(lost / 200000 - 0.05) < 0.01, `${lost} lost`);
  const runs = lossRuns(a);
  assert.ok(Math.abs(mean(runs) - 10) < 1.5, `mean burst ${mean(runs)}`);
  // geometric lengths: some bursts far longer than the mean
  assert.ok(Math.max(...runs) > 25);
});

test("delay with normal jitter: its mean and spread, and packets 1 ms apart reorder", () => {
  const a = fates({ delayNs: 20 * MS, jitterNs: 5 * MS, seed: 1 }, 20000);
  const d = a.map((f) => f.addedNs[0]!);
  const m = mean(d);
  const sd = Math.sqrt(mean(d.map((x) => (x - m) ** 2)));
  assert.ok(Math.abs(m - 20 * MS) < 0.2 * MS, `mean ${m / MS} ms`);
  assert.ok(Math.abs(sd - 5 * MS) < 0.2 * MS, `sd ${sd / MS} ms`);
  assert.ok(d.every((x) => x >= 0));
  // leave instants of datagrams sent 1 ms apart: with a 5 ms spread many overtake their elder
  let overtaken = 0;
  for (let i = 1; i < d.length; i++) if (i * MS + d[i]! < (i - 1) * MS + d[i - 1]!) overtaken++;
  assert.ok(overtaken / d.length > 0.2 && overtaken / d.length < 0.6, `${overtaken} overtaken`);
  // a fixed delay alone never reorders
  const fixed = fates({ delayNs: 20 * MS }, 100);
  assert.ok(fixed.every((f) => f.copies === 1 && f.addedNs[0] === 20 * MS));
});

test("duplication sends its share twice, each copy with its own delay draw", () => {
  const a = fates({ duplicate: 0.1, delayNs: 10 * MS, jitterNs: 2 * MS, seed: 5 }, 20000);
  const twice = a.filter((f) => f.copies === 2);
  assert.ok(Math.abs(twice.length / 20000 - 0.1) < 0.01, `${twice.length} twice`);
  assert.ok(twice.some((f) => f.addedNs[0] !== f.addedNs[1]));
  assert.ok(a.every((f) => f.copies >= 1));
});

test("the link starts after its start delay; its counts split STUN, DTLS and media", () => {
  const l = new LegLink({ ...NONE, loss: 1, afterNs: 50 * MS }, 1);
  const out = new Float64Array(2);
  assert.equal(l.decide(STUN, 0, out), 1);
  assert.equal(out[0], 0);
  assert.equal(l.decide(DTLS, 49 * MS, out), 1);
  assert.equal(l.counts.datagrams, 0);
  assert.equal(l.decide(STUN, 50 * MS, out), 0);
  assert.equal(l.decide(DTLS, 51 * MS, out), 0);
  assert.equal(l.decide(SRTP, 52 * MS, out), 0);
  assert.equal(l.decide(0x81 + 0x40, 53 * MS, out), 0);
  const c = l.counts;
  assert.deepEqual(
    [c.datagrams, c.stun, c.dtls, c.media, c.lost, c.lostStun, c.lostDtls, c.lostMedia],
    [4, 1, 1, 2, 4, 1, 1, 2],
  );
});

test("media only: STUN and DTLS pass untouched and uncounted, SRTP and SRTCP cross the link", () => {
  const l = new LegLink({ ...NONE, loss: 1, mediaOnly: true }, 1);
  const out = new Float64Array(2);
  assert.equal(l.decide(STUN, 5, out), 1);
  assert.equal(out[0], 5);
  assert.equal(l.decide(DTLS, 6, out), 1);
  assert.equal(l.decide(SRTP, 7, out), 0);
  assert.deepEqual([l.counts.datagrams, l.counts.stun, l.counts.dtls, l.counts.lostMedia], [1, 0, 0, 1]);
});
