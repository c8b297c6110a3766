// A finished report's outputs (docs/definitions.md#report-files): one interface, one writer per
// file kind, and the one function that builds, judges and hands a run's report to its list of
// writers, in order. A run writes JSON, Markdown, HTML (unless --no-html) and the gate's files
// (--junit, --summary-md); a capacity step its JSON; an agent whose coordinator is gone its JSON
// and Markdown. Every file is written under a temporary name and renamed (write-report.ts).

import { buildReportParts } from "../../core/report/build.ts";
import { delayDistribution } from "../../core/report/distribution.ts";
import type { ReportInput } from "../../core/report/input.ts";
import { reportToJson } from "../../core/report/json.ts";
import { reportToMarkdown } from "../../core/report/markdown.ts";
import type { DelayPools } from "../../core/report/pooled.ts";
import { junitXml, summaryMarkdown } from "../../core/report/threshold-render.ts";
import type { Report } from "../../core/report/types.ts";
import type { Logger } from "../observe/log.ts";
import { renderHtmlReport } from "./html-report.ts";
import { removeFiles, writeInDir, writeNamed } from "./write-report.ts";

/** A built and judged report, its pooled delay histograms, and where its files go (`<dir>/<stem>.*`). */
export interface FinishedReport {
  readonly report: Report;
  readonly pools: DelayPools;
  /** the report JSON as written (`--json` prints it) */
  readonly json: string;
  readonly dir: string;
  readonly stem: string;
}

/** One kind of file a finished report is written to. */
export interface Output {
  readonly name: string;
  /** writes its files; returns their paths in the order written */
  write(r: FinishedReport): Promise<string[]>;
  /** the outputs whose files, already written, are removed when this one fails (all or nothing) */
  readonly rollsBack?: readonly string[];
}

/** `<stem>.json`. */
export const jsonOutput: Output = {
  name: "json",
  write: async (r) => [await writeInDir(r.dir, `${r.stem}.json`, r.json)],
};

/** `<stem>.md`: if it cannot be written, the JSON is removed too. */
export const markdownOutput: Output = {
  name: "markdown",
  write: async (r) => [await writeInDir(r.dir, `${r.stem}.md`, reportToMarkdown(r.report))],
  rollsBack: ["json"],
};

/** `<stem>.html`, with the pooled delay distribution's charts. */
export const htmlOutput: Output = {
  name: "html",
  write: async (r) => {
    const page = await renderHtmlReport(r.report, delayDistribution(r.report, r.pools));
    return [await writeInDir(r.dir, `${r.stem}.html`, page)];
  },
};

/** --junit PATH: the thresholds as JUnit XML. */
export function junitOutput(path: string): Output {
  return { name: "junit", write: async (r) => [await writeNamed(path, junitXml(r.report))] };
}

/** --summary-md PATH: the thresholds as a job summary. */
export function summaryOutput(path: string): Output {
  return { name: "summary-md", write: async (r) => [await writeNamed(path, summaryMarkdown(r.report))] };
}

/** Hands the report to each output in order; returns every path written, in order. */
export async function writeOutputs(r: FinishedReport, outputs: readonly Output[]): Promise<string[]> {
  const written = new Map<string, string[]>();
  for (const o of outputs) {
    try {
      written.set(o.name, await o.write(r));
    } catch (err) {
      await removeFiles((o.rollsBack ?? []).flatMap((name) => written.get(name) ?? []));
      throw err;
    }
  }
  return [...written.values()].flat();
}

export interface FinishOptions {
  input: ReportInput;
  /** the scenario's thresholds applied (a run's and a step's gate); none: the report as built */
  judge?: (r: Report) => Report;
  /** where the verdict line goes once the report is judged */
  log?: Logger;
  dir: string;
  stem: string;
  outputs: readonly Output[];
}

/** The report built, judged and written: build → judge → JSON → each output. */
export async function finishReport(
  opts: FinishOptions,
): Promise<{ report: Report; json: string; files: string[] }> {
  const built = buildReportParts(opts.input);
  const report = opts.judge?.(built.report) ?? built.report;
  opts.log?.line(report.aggregate.verdict);
  const finished = { report, pools: built.pools, json: reportToJson(report), dir: opts.dir, stem: opts.stem };
  const files = await writeOutputs(finished, opts.outputs);
  return { report, json: finished.json, files };
}
