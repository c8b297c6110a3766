// Markdown report (docs/definitions.md#markdown-report). The golden file test/fixtures/report-golden.md is the rendering of
// goldenInput() (golden-fixtures.ts), compared byte for byte. To regenerate it after a deliberate change:
//   WB_UPDATE_GOLDEN=1 node_modules/.bin/node --test test/unit/markdown.test.ts
// (test/fixtures/report-cohorts-golden.md likewise renders cohortInput(), a run with cohorts)
// then review the diff of the fixture before committing it.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { ViewerErrorKind } from "../../src/core/errors.ts";
import { buildReport } from "../../src/core/report/build.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { COHORTS_METHOD } from "../../src/core/report/method-lines.ts";
import { cohortInput } from "./cohort-fixtures.ts";
import { goldenChurnInput, goldenInput } from "./golden-fixtures.ts";
import { healthyViewers, makeInput, makeScenario, makeViewer } from "./report-fixtures.ts";

const GOLDEN = new URL("../fixtures/report-golden.md", import.meta.url);
const COHORTS_GOLDEN = new URL("../fixtures/report-cohorts-golden.md", import.meta.url);
const GOLDEN_CHURN = new URL("../fixtures/report-golden-churn.md", import.meta.url);

describe("golden Markdown", () => {
  test("with churn: matches test/fixtures/report-golden-churn.md byte for byte", () => {
    const md = reportToMarkdown(buildReport(goldenChurnInput()));
    if (process.env["WB_UPDATE_GOLDEN"] === "1") writeFileSync(GOLDEN_CHURN, md);
    assert.equal(md, readFileSync(GOLDEN_CHURN, "utf8"));
    assert.match(md, /## Churn\n\n3 viewers in all; late joiners 1 \(1 joined\); joins 3; leaves 1 /);
    assert.match(md, /\| join: first keyframe \| 1 \| 412\.5 ms /);
  });

  test("matches test/fixtures/report-golden.md byte for byte", () => {
    const md = reportToMarkdown(buildReport(goldenInput()));
    if (process.env["WB_UPDATE_GOLDEN"] === "1") writeFileSync(GOLDEN, md);
    assert.equal(md, readFileSync(GOLDEN, "utf8"));
  });

  test("a run with cohorts matches test/fixtures/report-cohorts-golden.md byte for byte", () => {
    const md = reportToMarkdown(buildReport(cohortInput()));
    if (process.env["WB_UPDATE_GOLDEN"] === "1") writeFileSync(COHORTS_GOLDEN, md);
    assert.equal(md, readFileSync(COHORTS_GOLDEN, "utf8"));
    assert.ok(md.includes("## Cohorts"), "the cohort table");
    assert.ok(md.includes(COHORTS_METHOD), "the cohorts' method line");
  });
});

describe("sections and rows (docs/definitions.md#markdown-report)", () => {
  test("delays print to 0.1 ms; one-way delay leads the aggregate table", () => {
    const md = reportToMarkdown(buildReport(makeInput([makeViewer(0, { keyMs: [10, 10] })])));
    assert.ok(md.includes("| one-way delay (fingerprint, per frame) | 2 | 10.0 ms |"));
    assert.ok(
      md.indexOf("| one-way delay (fingerprint, per frame)") < md.indexOf("| join: first keyframe |"),
    );
    assert.ok(md.includes("| delay p50 | delay p99 | transit p50 |"));
    assert.ok(md.includes("| one-way delay, delta frames | 0 | — | — | — | — | — |"));
  });

  test("the two unavailable lines, one-way delay first", () => {
    const md = reportToMarkdown(
      buildReport(makeInput([makeViewer(0, { counters: { completeFrames: 2, unmatchedFrames: 2 } })])),
    );
    const delay = md.indexOf(
      "**One-way delay: unavailable** — no valid sample: 2 complete frames (2 unmatched, 0 invalid, 0 excluded), 0 incomplete.\n",
    );
    const transit = md.indexOf(
      "**Packet transit: unavailable** — not negotiated: the WHEP answer did not accept abs-capture-time.\n",
    );
    assert.ok(delay > 0 && transit > delay);
    assert.doesNotMatch(md, /\| one-way delay \(fingerprint, per frame\)/);
    assert.ok(
      md.includes(
        "| 0 | 0 ms | yes | 30 ms | 1000 ms | 1000 | 0 | 0.00% | 0 | 0.50 ms | 1.00 s | 0 | n/a | n/a | n/a | n/a | n/a | n/a |  |\n",
      ),
    );
  });

  test("an invalid run hides the aggregate but keeps the other sections", () => {
    const viewers = [
      makeViewer(0, { keyMs: [1] }),
      makeViewer(1, { joined: false, codec: null, errorKind: "http_503", error: "POST to h: HTTP 503" }),
    ];
    const md = reportToMarkdown(buildReport(makeInput(viewers)));
    assert.ok(
      md.includes("**no verdict: 1 of 2 viewers (50%) failed to join, above the 10% the rule allows.**"),
    );
    assert.ok(md.includes("2 viewers asked for, 1 joined, 1 failed (50%), 0 dropped after joining."));
    assert.doesNotMatch(md, /## Aggregate|One-way delay \(fingerprint\)|Packets:|## What viewers saw/);
    for (const section of ["## Verdict", "## Publisher", "## Errors", "## Viewers", "## Method"]) {
      assert.ok(md.includes(`\n${section}\n\n`), section);
    }
    assert.ok(md.includes("| `http_503` | 1 |"));
    // no packet arrived, so neither its loss nor its jitter was measured: dashes, not 0.00% or 0.00 ms
    assert.ok(
      md.includes(
        "| 1 | 1000 ms | no | — | — | 0 | 0 | — | 0 | — | — | 0 | n/a | n/a | n/a | n/a | n/a | n/a | http_503 |",
      ),
    );
    assert.ok(md.endsWith(".\n") && !md.endsWith("\n\n"));
  });

  test("client rows: Go rounding, heap, RSS, main thread, workers, ceiling", () => {
    const md = reportToMarkdown(buildReport(makeInput(healthyViewers(1))));
    assert.ok(
      md.includes(
        "| client resources | 2.0 CPU s, 12% of all cores, peak heap 48.0 MiB, peak RSS 160.2 MiB, main thread 0.8 CPU s, event-loop delay p99 4.5 ms, 2 worker threads, kernel UDP receive errors none (the whole process, not the server) |",
      ),
    );
    assert.ok(md.includes("| client threads | worker 0: 2 viewers, 5000 packets, 100.0 µs CPU/packet,"));
    assert.ok(md.includes("| client ceiling | not near (thresholds: event-loop utilisation 0.90,"));
    assert.ok(!md.includes("Warning: this client was near its own ceiling"));
    const input = makeInput(healthyViewers(1));
    const noCpu = buildReport({
      ...input,
      resources: { cpuReason: "unavailable here", peakHeapBytes: 0, peakRssBytes: 0, workers: 0 },
    });
    assert.ok(
      reportToMarkdown(noCpu).includes(
        "| client resources | CPU unavailable here, peak heap 0.0 MiB, peak RSS 0.0 MiB, viewers in the main thread (the whole process, not the server) |",
      ),
    );
  });

  test("header of a view without a name; escaping of free text", () => {
    const { publisher: _p, ...input } = makeInput(
      [
        // a report read from a file may hold any text where a kind belongs
        makeViewer(0, { keyMs: [1], errorKind: "odd|kind\nline" as ViewerErrorKind }),
      ],
      {
        command: "view",
        topology: "split",
        hasSendLog: false,
        clock: { method: "none", reason: "clock peer did not answer", stepDetected: false },
        scenario: makeScenario(1, { name: "", whip: "", rampSeconds: 0, excludeFirstSeconds: 0.5 }),
      },
    );
    const md = reportToMarkdown(buildReport(input));
    assert.ok(md.startsWith("# whipbench view\n\n| | |\n|---|---|\n| whipbench | dev+0123456789ab |\n"));
    assert.ok(
      md.includes(
        "| started | 2026-10-05 07:43:46Z |\n| duration | 42.0 s |\n| WHEP host | `[::1]:8889` |\n",
      ),
    );
    assert.doesNotMatch(md, /WHIP host|## Publisher/);
    assert.ok(
      md.includes(
        "| scenario | 1 viewers, ramp 0s, hold 30s, warmup 2s, join timeout 10s, exclude first 0.5s, codec vp8 |",
      ),
    );
    assert.ok(md.includes("| clock | none — publisher clock not measured: clock peer did not answer |"));
    assert.ok(md.includes("| topology | split |"));
    assert.ok(md.includes("| odd\\|kind line |\n"));
    assert.ok(
      md.includes("**One-way delay: unavailable** — no send log: the send log lives in the `run` process"),
    );
    assert.ok(md.includes("- Jitter: RFC 3550 section 6.4.1 interarrival jitter, J += (\\|D\\| − J)/16"));
  });
});

test("the client line names the publisher's send-stamp source, with why frames had the hand-over instant", () => {
  const md = reportToMarkdown(
    buildReport(
      makeInput(healthyViewers(1), {
        sendStamps: { kernel: 99, handover: 1, reasons: ["its kernel stamp was not back by the end"] },
      }),
    ),
  );
  assert.ok(md.includes("send stamps: mixed (its kernel stamp was not back by the end)"), md);
  const plain = reportToMarkdown(buildReport(makeInput(healthyViewers(1))));
  assert.ok(!plain.includes("send stamps:"), "absent without client.sendStamps");
});
