// Loss where no packet was expected (docs/definitions.md#aggregate, #rtp-statistics): not measured,
// so null with its reason in the JSON, a dash in a table and "unavailable, because …" in a sentence
// — never a 0 that reads as "no loss".
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import { stdoutLines } from "../../src/core/report/headline.ts";
import { cohortSection } from "../../src/core/report/html-cohorts.ts";
import { packetsSentence } from "../../src/core/report/markdown-cells.ts";
import { cohortsMarkdown } from "../../src/core/report/markdown-cohorts.ts";
import { NO_PACKET_EXPECTED_REASON } from "../../src/core/report/reasons.ts";
import type { Report } from "../../src/core/report/types.ts";
import { readCohortFigure } from "../../src/core/thresholds/cohort-figures.ts";
import { readFigure } from "../../src/core/thresholds/figures.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { makeInput, makeViewer } from "./report-fixtures.ts";

const failed = (id: number) => makeViewer(id, { joined: false, errorKind: "http_503", error: "HTTP 503" });

test("no viewer received a packet: aggregate loss null with its reason, each viewer's null", () => {
  const r = buildReport(makeInput([failed(0), failed(1)]));
  assert.equal(r.aggregate.lossPercentTotal, null);
  assert.equal(r.aggregate.lossPercentTotalReason, NO_PACKET_EXPECTED_REASON);
  for (const v of r.viewers ?? []) assert.equal(v.rtp.lossPercent, null, `viewer ${v.id}`);
  assert.equal(r.aggregate.lossPercent.n, 0, "no viewer's loss in the summary");
  // the reason key follows its figure in the JSON's key order
  const keys = Object.keys(r.aggregate);
  assert.equal(keys.indexOf("lossPercentTotalReason"), keys.indexOf("lossPercentTotal") + 1);
  assert.match(
    packetsSentence(r),
    /^Packets: 0 received, 0 lost \(loss unavailable, because no packet was expected/,
  );
  assert.deepEqual(readFigure(r, "loss"), { unavailable: NO_PACKET_EXPECTED_REASON });
  // the headline's line, were the aggregate shown
  const shown: Report = { ...r, aggregate: { ...r.aggregate, valid: true } };
  assert.ok(
    stdoutLines(shown).some((l) => l.includes(`loss unavailable, because ${NO_PACKET_EXPECTED_REASON};`)),
  );
});

test("a viewer with packets: its loss measured, the reason key absent, one failed viewer left out", () => {
  const r = buildReport(
    makeInput([makeViewer(0, { rtp: { lost: 10, expected: 1000, received: 990 } }), failed(1)]),
  );
  assert.equal(r.aggregate.lossPercentTotal, 1);
  assert.ok(!("lossPercentTotalReason" in r.aggregate));
  assert.equal(r.viewers?.[0]?.rtp.lossPercent, 0, "the record's own figure, measured");
  assert.equal(r.viewers?.[1]?.rtp.lossPercent, null);
  assert.match(packetsSentence(r), /\(1\.000% of expected\)/);
});

test("a cohort whose viewers all failed: its loss null with the reason, a dash in both tables", () => {
  const input = cohortInput();
  input.viewers = input.viewers.map((v) =>
    v.record.cohort === "far"
      ? { ...failed(v.record.id), record: { ...failed(v.record.id).record, cohort: "far" } }
      : v,
  );
  const r = buildReport(input);
  const far = r.aggregate.cohorts?.find((c) => c.name === "far");
  assert.equal(far?.lossPercentTotal, null);
  assert.equal(far?.lossPercentTotalReason, NO_PACKET_EXPECTED_REASON);
  const rest = r.aggregate.cohorts?.find((c) => c.name !== "far");
  assert.equal(rest?.lossPercentTotal, 0, "the unimpaired viewers received every packet");
  assert.deepEqual(readCohortFigure(r, "far", "loss"), { unavailable: NO_PACKET_EXPECTED_REASON });
  assert.ok(
    !("unavailable" in readCohortFigure(r, rest?.name ?? "", "loss")),
    "the other cohort's is measured",
  );
  const shown: Report = { ...r, aggregate: { ...r.aggregate, valid: true } };
  const row = cohortsMarkdown(shown).find((l) => l.startsWith("| `far`"));
  assert.match(row ?? "", /^\| `far` \| 0\/2 \|(?: [^|]+ \|){5} — \|/);
  assert.match(
    cohortSection(shown),
    /loss after repair<\/th>(?:<td[^>]*>[^<]*<\/td>)*?<td[^>]*>— \(0 of 0\)<\/td>/,
  );
});
