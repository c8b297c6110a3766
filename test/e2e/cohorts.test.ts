// The emulated links per cohort held to what they claim (docs/definitions.md#link-emulator),
// against the built-in relay: +20 ms on the downlink moves the cohort's one-way delay by 20 ms
// and leaves the unimpaired viewers' alone; a 2 % loss cohort's drops are what the relay
// retransmits and what its NACKs ask for; a rate limit below the stream's bitrate grows the
// queueing delay to the queue's limit and then drops.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RTCRtpTransceiver } from "werift";
import { parseCohorts } from "../../src/core/link/parse.ts";
import type { CohortReport, Report } from "../../src/core/report/types.ts";
import { runThroughRelay } from "./harness.ts";
import { checkReportKeys } from "./report-keys.ts";

/** The relay's retransmissions: an RTP send of a sequence number this leg already sent. */
function countResends(): { prepare: (tr: RTCRtpTransceiver) => void; resends: () => number } {
  let resends = 0;
  return {
    prepare(tr) {
      const dtls = tr.dtlsTransport as unknown as {
        sendRtp: (payload: Buffer, header: { sequenceNumber: number }) => Promise<number>;
      };
      const send = dtls.sendRtp.bind(dtls);
      const sent = new Set<number>();
      dtls.sendRtp = (payload, header) => {
        if (sent.has(header.sequenceNumber)) resends++;
        else sent.add(header.sequenceNumber);
        return send(payload, header);
      };
    },
    resends: () => resends,
  };
}

function cohort(r: Report, name: string): CohortReport {
  const c = r.aggregate.cohorts?.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no cohort ${name}`);
  return c;
}

function p50(c: CohortReport): number {
  const b = c.oneWayDelay[0];
  assert.ok(b?.available && b.ms !== undefined, `${c.name}: ${b?.reason ?? ""}`);
  return b.ms.p50;
}

test("a +20 ms downlink moves its cohort's one-way delay by 20 ms; a 2 % loss cohort's drops are repaired one for one", async (t) => {
  const tally = countResends();
  const cohorts = parseCohorts([
    { name: "far", viewers: 2, down: { delay: "20ms" } },
    { name: "lossy", viewers: 2, steps: [{ at: "2s", down: { loss: "2%" } }], seed: 3 },
  ]);
  const {
    report: r,
    json,
    markdown,
    relay,
  } = await runThroughRelay(
    { test: { prepareLeg: tally.prepare } },
    { viewers: 6, rampSeconds: 1, holdSeconds: 6, cohorts },
  );
  assert.deepEqual(checkReportKeys(JSON.parse(json) as unknown).problems, []);
  assert.equal(r.aggregate.joined, 6);
  assert.match(markdown, /## Cohorts\n[\s\S]*\| `far` \| 2\/2 \|[\s\S]*\| `unimpaired` \| 2\/2 \|/);
  const far = cohort(r, "far");
  const lossy = cohort(r, "lossy");
  const free = cohort(r, "unimpaired");
  assert.deepEqual([far.viewers, lossy.viewers, free.viewers], [2, 2, 2]);
  assert.equal(free.impaired, false);
  assert.equal(free.link, undefined);
  const names = (r.viewers ?? []).map((v) => v.cohort ?? "");
  assert.equal(names.filter((n) => n === "far").length, 2);
  assert.equal(names.filter((n) => n === "").length, 2);
  // +20 ms exactly on each arrival: the difference is 20 ms ± the viewers' own spread on loopback
  const shift = p50(far) - p50(free);
  t.diagnostic(`p50 far ${p50(far)} ms, unimpaired ${p50(free)} ms: shift ${shift.toFixed(2)} ms`);
  assert.ok(Math.abs(shift - 20) <= 3, `shift ${shift} ms`);
  assert.ok(p50(free) < 15, `unimpaired p50 ${p50(free)} ms`);
  assert.ok((far.link?.down.delayed ?? 0) > 0 && far.link?.down.droppedLoss === 0);
  // the handshakes crossed the link too: ICE (one STUN answer) and DTLS (two flights) each waited 20 ms
  for (const v of (r.viewers ?? []).filter((x) => x.cohort === "far")) {
    assert.ok((v.iceConnectedMs ?? 0) >= 40, `viewer ${v.id} connected after ${v.iceConnectedMs} ms`);
  }
  // every dropped RTP packet was NACKed and retransmitted by the relay, so little is lost after repair;
  // drops of sender reports and STUN, and in the moment between the deadline and the peer's close, are not
  const drops = lossy.link?.down.droppedLoss ?? 0;
  // werift's sender resends through its DTLS transport (counted there); the native fan-out counts its own
  const resends = relay.send.fanout !== null ? relay.send.fanout.resent : tally.resends();
  t.diagnostic(
    `lossy: emulator dropped ${drops} of ${lossy.link?.down.datagrams}, relay resent ${resends}, NACKs ${lossy.nacksSent}, lost after repair ${lossy.packetsLost}`,
  );
  assert.ok(drops >= 10, `drops ${drops}`);
  assert.ok(resends <= drops && resends >= drops - 4, `drops ${drops}, resends ${resends}`);
  assert.ok(Math.abs(lossy.nacksSent - resends) <= Math.max(3, resends * 0.1), `NACKs ${lossy.nacksSent}`);
  assert.ok(lossy.packetsLost <= 3, `lost after repair ${lossy.packetsLost}`);
  assert.equal(far.nacksSent + free.nacksSent, 0);
});

test("a rate limit below the stream's bitrate grows the queueing delay to its queue's limit, then drops", async (t) => {
  const cohorts = parseCohorts([
    { name: "thin", viewers: 1, steps: [{ at: "2s", down: { rate: "450kbps", queue: "300ms" } }] },
  ]);
  const { report: r } = await runThroughRelay({}, { viewers: 2, rampSeconds: 1, holdSeconds: 6, cohorts });
  const thin = cohort(r, "thin");
  const free = cohort(r, "unimpaired");
  const b = thin.oneWayDelay[0];
  t.diagnostic(
    `thin: p50 ${b?.ms?.p50} p95 ${b?.ms?.p95} max ${b?.ms?.max} ms, queue drops ${thin.link?.down.droppedQueue}, unimpaired max ${free.oneWayDelay[0]?.ms?.max} ms`,
  );
  assert.ok((thin.link?.down.droppedQueue ?? 0) > 0, "the queue overflowed");
  // frames that completed behind the full queue waited its 300 ms (repaired ones longer: their
  // retransmissions queue too), where the unimpaired viewer's stayed on loopback
  assert.ok((b?.ms?.p95 ?? 0) >= 250, `the queueing delay grew: p95 ${b?.ms?.p95} ms`);
  assert.ok((free.oneWayDelay[0]?.ms?.max ?? 0) < 100);
  assert.ok(thin.nacksSent > 0 && thin.packetsLost + thin.incompleteFrames > 0);
});
