// A finished report's outputs (src/main/output/outputs.ts): each writer's file holds what its
// renderer gives for the judged report, the list is written in order, and a Markdown that cannot be
// written takes its JSON with it while an HTML that cannot be written leaves the pair.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildReport, buildReportParts } from "../../src/core/report/build.ts";
import { delayDistribution } from "../../src/core/report/distribution.ts";
import { reportToHtml } from "../../src/core/report/html.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { reportToMarkdown } from "../../src/core/report/markdown.ts";
import { junitXml, summaryMarkdown } from "../../src/core/report/threshold-render.ts";
import type { Report } from "../../src/core/report/types.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { htmlAssets } from "../../src/main/output/html-report.ts";
import {
  finishReport,
  htmlOutput,
  jsonOutput,
  junitOutput,
  markdownOutput,
  summaryOutput,
} from "../../src/main/output/outputs.ts";
import { makeInput, makeViewer } from "./report-fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "whipbench-outputs-"));
after(() => rmSync(root, { recursive: true, force: true }));

function input() {
  return makeInput([
    makeViewer(0, { keyMs: [10, 12.5], deltaMs: [1.2, 2.5, 3.1, 40] }),
    makeViewer(1, { keyMs: [11], deltaMs: [0.9, 2.2] }),
  ]);
}

/** A judge that marks the report, so the files can be seen to hold the judged one. */
function judge(r: Report): Report {
  return { ...r, method: [...r.method, "judged here"] };
}

test("every output writes its renderer's text of the judged report, in the list's order", async () => {
  const dir = join(root, "all");
  const inp = input();
  const log = memoryLogger();
  const done = await finishReport({
    input: inp,
    judge,
    log,
    dir,
    stem: "r",
    outputs: [
      jsonOutput,
      markdownOutput,
      htmlOutput,
      junitOutput(join(dir, "j.xml")),
      summaryOutput(join(dir, "s.md")),
    ],
  });
  const want = judge(buildReport(inp));
  assert.deepEqual(done.report, want);
  assert.deepEqual(
    done.files,
    ["r.json", "r.md", "r.html", "j.xml", "s.md"].map((f) => join(dir, f)),
  );
  assert.deepEqual(log.lines, [want.aggregate.verdict]);
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  assert.equal(read("r.json"), reportToJson(want));
  assert.equal(done.json, reportToJson(want));
  assert.equal(read("r.md"), reportToMarkdown(want));
  assert.equal(
    read("r.html"),
    reportToHtml(want, delayDistribution(want, buildReportParts(inp).pools), await htmlAssets()),
  );
  assert.equal(read("j.xml"), junitXml(want));
  assert.equal(read("s.md"), summaryMarkdown(want));
});

test("a Markdown that cannot be written removes its JSON; an HTML that cannot be written keeps both", async () => {
  const pair = join(root, "pair");
  mkdirSync(join(pair, "r.md"), { recursive: true }); // a directory where the file goes: rename fails
  await assert.rejects(
    finishReport({ input: input(), dir: pair, stem: "r", outputs: [jsonOutput, markdownOutput] }),
  );
  assert.deepEqual(readdirSync(pair), ["r.md"]);

  const page = join(root, "page");
  mkdirSync(join(page, "r.html"), { recursive: true });
  await assert.rejects(
    finishReport({ input: input(), dir: page, stem: "r", outputs: [jsonOutput, markdownOutput, htmlOutput] }),
  );
  assert.deepEqual(readdirSync(page).sort(), ["r.html", "r.json", "r.md"]);
});
