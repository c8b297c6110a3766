import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { applyComparability, rankable } from "../../src/core/report/comparability.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import type { ClockBlock, Report } from "../../src/core/report/types.ts";
import { healthyViewers, makeInput, makeScenario } from "./report-fixtures.ts";

const available = { available: true, samples: 3 };
const MONOTONIC: ClockBlock = { method: "monotonic", offsetMs: 0, uncertaintyMs: 0, stepDetected: false };

describe("comparability table (docs/definitions.md#comparability)", () => {
  test("unavailable block: not comparable, no uncertainty", () => {
    assert.deepEqual(applyComparability({ available: false }, MONOTONIC), {
      available: false,
      comparable: false,
      notComparableReason: "no figure: the block is unavailable",
    });
  });

  test("monotonic: comparable with uncertainty 0, even with a step", () => {
    assert.deepEqual(applyComparability(available, MONOTONIC), {
      ...available,
      uncertaintyMs: 0,
      comparable: true,
    });
    assert.deepEqual(applyComparability(available, { ...MONOTONIC, stepDetected: true }), {
      ...available,
      uncertaintyMs: 0,
      comparable: true,
    });
  });

  test("none: publisher clock not measured, with the clock's reason", () => {
    assert.deepEqual(applyComparability(available, { method: "none", stepDetected: false }), {
      ...available,
      comparable: false,
      notComparableReason: "publisher clock not measured",
    });
    assert.equal(
      applyComparability(available, {
        method: "none",
        reason: "clock peer did not answer",
        stepDetected: false,
      }).notComparableReason,
      "publisher clock not measured: clock peer did not answer",
    );
    assert.equal(
      applyComparability(available, { method: "", stepDetected: false }).notComparableReason,
      "publisher clock not measured",
    );
  });

  test("exchange: uncertainty missing, too large, step, fine", () => {
    const exchange: ClockBlock = {
      method: "exchange",
      offsetMs: 250,
      uncertaintyMs: 0.4,
      stepDetected: false,
    };
    assert.equal(
      applyComparability(available, { method: "exchange", stepDetected: false }).notComparableReason,
      "clock uncertainty not measured",
    );
    assert.deepEqual(applyComparability(available, { ...exchange, uncertaintyMs: 1.5 }), {
      ...available,
      uncertaintyMs: 1.5,
      comparable: false,
      notComparableReason: "clock uncertainty 1.5 ms is above the 1 ms a ranking allows",
    });
    assert.equal(applyComparability(available, { ...exchange, uncertaintyMs: 1 }).comparable, true);
    assert.deepEqual(applyComparability(available, { ...exchange, stepDetected: true }), {
      ...available,
      uncertaintyMs: 0.4,
      comparable: false,
      notComparableReason: "the wall clock stepped during the run",
    });
    assert.equal(
      applyComparability(available, { method: "same-wall-clock", uncertaintyMs: 0, stepDetected: true })
        .notComparableReason,
      "the wall clock stepped during the run",
    );
  });

  test("re-applying replaces stale fields and keeps them last", () => {
    const first = applyComparability({ available: true, ms: 1 }, { ...MONOTONIC, uncertaintyMs: 3 });
    const again = applyComparability(first, MONOTONIC);
    assert.deepEqual(Object.keys(again), ["available", "ms", "uncertaintyMs", "comparable"]);
    assert.equal(again.notComparableReason, undefined);
  });
});

describe("reports", () => {
  test("a single-process run is comparable with uncertainty 0", () => {
    const r = buildReport(makeInput(healthyViewers(2)));
    const p = r.aggregate.oneWayDelay[0]!;
    assert.equal(p.comparable, true);
    assert.equal(p.uncertaintyMs, 0);
    assert.match(reportToMarkdown(r), /\| clock \| monotonic, offset 0 ms ± 0 ms, no step \|/);
  });

  test("a view carries no offset, no uncertainty and nothing comparable", () => {
    const { publisher: _p, ...input } = makeInput(healthyViewers(2), {
      command: "view",
      topology: "split",
      hasSendLog: false,
      clock: { method: "none", stepDetected: false },
      scenario: makeScenario(2, { whip: "" }),
    });
    const r = buildReport(input);
    const json = reportToJson(r);
    for (const s of ['"offsetMs"', '"uncertaintyMs"', '"comparable": true'])
      assert.equal(json.includes(s), false, s);
    const md = reportToMarkdown(r);
    assert.ok(md.includes("| clock | none — publisher clock not measured |"));
    assert.ok(md.includes("\n# unit test\n") || md.startsWith("# unit test\n"));
  });

  test("an available block under an unmeasured clock prints the not-comparable line", () => {
    const r = buildReport(makeInput(healthyViewers(2), { clock: { method: "none", stepDetected: false } }));
    assert.ok(
      reportToMarkdown(r).includes(
        "**One-way delay (fingerprint): not comparable** with another report's — publisher clock not measured.\n",
      ),
    );
  });

  test("exchange clock row and the clock-exchange method line", () => {
    const clock: ClockBlock = {
      method: "exchange",
      offsetMs: 250.012,
      uncertaintyMs: 0.125,
      points: [
        { tS: 0.5, offsetMs: 250.012, rttMs: 0.2 },
        { tS: 30.5, offsetMs: 250.02, rttMs: 0.25 },
      ],
      stepDetected: false,
    };
    const r = buildReport(makeInput(healthyViewers(1), { clock, topology: "split" }));
    assert.ok(
      reportToMarkdown(r).includes("| clock | exchange, offset 250.012 ms ± 0.125 ms, 2 points, no step |"),
    );
    assert.ok(r.method.some((m) => m.startsWith("Clock exchange:")));
    assert.match(reportToJson(r), /"points": \[\n {6}\{\n {8}"tS": 0.5,/);
  });
});

describe("rankable", () => {
  const base = (): Report => buildReport(makeInput(healthyViewers(2)));

  test("two equal single-process reports rank", () => {
    assert.deepEqual(rankable(base(), base(), "fingerprint"), { ok: true });
  });

  test("endpoint hosts, name, bearerEnv and metrics are ignored", () => {
    const b = buildReport(
      makeInput(healthyViewers(2), {
        scenario: makeScenario(2, {
          name: "other",
          whep: "https://other.example.test/whep",
          bearerEnv: "X",
          metrics: "127.0.0.1:9464",
        }),
      }),
    );
    assert.deepEqual(rankable(base(), b, "fingerprint"), { ok: true });
  });

  test("keys that only say how the client ran (workers, receivePath) are ignored", () => {
    const b = buildReport(
      makeInput(healthyViewers(2), { scenario: makeScenario(2, { workers: 4, receivePath: "werift" }) }),
    );
    assert.deepEqual(rankable(base(), b, "fingerprint"), { ok: true });
  });

  test("the publisher's send-stamp source takes part where both reports record it", () => {
    const kernel = buildReport(makeInput(healthyViewers(2), { sendStamps: { kernel: 100, handover: 0 } }));
    const handover = buildReport(
      makeInput(healthyViewers(2), { sendStamps: { kernel: 0, handover: 100, reasons: ["not Linux"] } }),
    );
    assert.equal(kernel.client.sendStampSource, "kernel");
    assert.equal(handover.client.sendStampSource, "handover");
    assert.deepEqual(rankable(kernel, handover, "fingerprint"), {
      ok: false,
      reason: "send-stamp sources differ: kernel and handover",
    });
    assert.deepEqual(rankable(kernel, kernel, "fingerprint"), { ok: true });
    // a report without the key (an older one, the reference tool's) is not held to it
    assert.deepEqual(rankable(kernel, base(), "fingerprint"), { ok: true });
  });

  test("the clip's identity takes part: another clip of the same codec and length, or none recorded", () => {
    const other = buildReport(makeInput(healthyViewers(2), { clipHash: "sha256:fedcba9876543210" }));
    assert.deepEqual(rankable(base(), other, "fingerprint"), {
      ok: false,
      reason: "clips differ: sha256:0123456789abcdef and sha256:fedcba9876543210",
    });
    const unknown = base();
    delete unknown.aggregate.oneWayDelay[0]!.clipHash;
    assert.deepEqual(rankable(base(), unknown, "fingerprint"), {
      ok: false,
      reason: "report B does not record its clip's identity (clipHash)",
    });
  });

  test("refusals in order", () => {
    const no = (reason: string) => ({ ok: false, reason });
    assert.deepEqual(rankable(base(), undefined, "fingerprint"), no("a report is missing"));
    assert.deepEqual(
      rankable(base(), base(), "stamp"),
      no("report A's stamp figure is not comparable: no figure: the block is unavailable"),
    );
    const oldReport = base();
    oldReport.aggregate.oneWayDelay = oldReport.aggregate.oneWayDelay.filter((b) => b.source !== "stamp");
    assert.deepEqual(rankable(oldReport, base(), "stamp"), no('report A has no "stamp" source'));
    const invalid = buildReport(makeInput(healthyViewers(2), { interrupted: true }));
    assert.deepEqual(
      rankable(base(), invalid, "fingerprint"),
      no("report B has no verdict: no verdict: the run was interrupted before its scheduled end"),
    );
    const view = buildReport(
      makeInput(healthyViewers(2), { clock: { method: "none", stepDetected: false } }),
    );
    assert.deepEqual(
      rankable(view, base(), "fingerprint"),
      no("report A's fingerprint figure is not comparable: publisher clock not measured"),
    );
    const noVerdict = base();
    const { comparable: _c, ...rest } = noVerdict.aggregate.oneWayDelay[0]!;
    noVerdict.aggregate.oneWayDelay[0] = rest as never;
    assert.deepEqual(
      rankable(base(), noVerdict, "fingerprint"),
      no("report B's fingerprint figure is not comparable: it carries no comparability verdict"),
    );
    const noUncertainty = base();
    delete noUncertainty.aggregate.oneWayDelay[0]!.uncertaintyMs;
    assert.deepEqual(
      rankable(noUncertainty, base(), "fingerprint"),
      no("report A's fingerprint figure has no clock uncertainty of 1 ms or less"),
    );
    const h264 = buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, { codec: "h264" }) }));
    h264.publisher!.codec = "h264";
    assert.deepEqual(
      rankable(base(), h264, "fingerprint"),
      no("clips differ: vp8 of 120 frames, h264 of 120 frames"),
    );
    const shortLoop = buildReport(makeInput(healthyViewers(2), { loopFrames: 90 }));
    assert.deepEqual(
      rankable(base(), shortLoop, "fingerprint"),
      no("clips differ: vp8 of 120 frames, vp8 of 90 frames"),
    );
  });

  test("scenario keys that are compared", () => {
    const differ = (over: Parameters<typeof makeScenario>[1]) =>
      rankable(
        base(),
        buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, over) })),
        "fingerprint",
      );
    assert.deepEqual(differ({ includeLoopback: true }), {
      ok: false,
      reason: "scenarios differ on includeLoopback",
    });
    assert.deepEqual(differ({ excludeFirstSeconds: 0 }), {
      ok: false,
      reason: "scenarios differ on excludeFirstSeconds",
    });
    assert.deepEqual(differ({ holdSeconds: 31 }), { ok: false, reason: "scenarios differ on holdSeconds" });
    assert.deepEqual(differ({ audio: true }), { ok: false, reason: "scenarios differ on audio" });
    assert.deepEqual(differ({ clip: "vp8-tl" }), { ok: false, reason: "scenarios differ on clip" });
    assert.deepEqual(differ({ viewers: 3, rampSeconds: 5 }), {
      ok: false,
      reason: "scenarios differ on rampSeconds",
    });
    assert.deepEqual(differ({ rampOffsetSeed: 1n }), {
      ok: false,
      reason: "scenarios differ on rampOffsetSeed",
    });
    const churn = { meanLifetimeSeconds: 30, minLifetimeSeconds: 10, seed: 1 };
    assert.deepEqual(differ({ churn }), { ok: false, reason: "scenarios differ on churn" });
    const withChurn = buildReport(makeInput(healthyViewers(2), { scenario: makeScenario(2, { churn }) }));
    const otherSeed = buildReport(
      makeInput(healthyViewers(2), { scenario: makeScenario(2, { churn: { ...churn, seed: 2 } }) }),
    );
    assert.deepEqual(rankable(withChurn, otherSeed, "fingerprint"), {
      ok: false,
      reason: "scenarios differ on churn",
    });
    assert.deepEqual(rankable(withChurn, withChurn, "fingerprint"), { ok: true });
  });
});
