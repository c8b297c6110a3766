// What `whipbench compare BASE.json NEW.json [NEW2.json …]` does: read the reports, rank,
// tabulate, gate, write. Exit 0: rankable and no --fail-on tripped; 99: a --fail-on tripped;
// 3: the reports may not be ranked (the reasons are printed); 2: a bad flag or a file that is not
// a report.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { compareReports, type FailOn, parseFailOn } from "../../core/compare/compare.ts";
import { type ComparedPair, compareHtml, compareMarkdown, compareObject } from "../../core/compare/render.ts";
import { UsageError, verdictStatus } from "../../core/errors.ts";
import type { Report } from "../../core/report/types.ts";
import { writeAtomic } from "../output/write-report.ts";

export interface CompareFlags {
  failOn?: string[];
  json?: boolean;
  md?: string;
  html?: string;
}

/** Reads a report JSON; anything else is a usage error naming the file. */
export async function readReportFile(path: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new UsageError(`${path}: cannot be read`, undefined, { cause: err });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path}: not JSON`, undefined, { cause: err });
  }
  const r = v as Partial<Report> | null;
  if (
    r === null ||
    typeof r !== "object" ||
    typeof r.schema !== "string" ||
    !r.schema.startsWith("whipbench.report/")
  ) {
    throw new UsageError(`${path}: not a whipbench report (no whipbench.report schema)`);
  }
  if (typeof r.aggregate !== "object" || r.aggregate === null)
    throw new UsageError(`${path}: the report has no aggregate`);
  return r as Report;
}

export async function compareCommand(base: string, news: string[], flags: CompareFlags): Promise<number> {
  const gates: FailOn[] = (flags.failOn ?? []).map(parseFailOn);
  const baseReport = await readReportFile(base);
  const pairs: ComparedPair[] = [];
  for (const file of news) {
    const next = await readReportFile(file);
    pairs.push({
      c: compareReports(baseReport, next, gates),
      base: { label: basename(base), verdict: baseReport.aggregate.verdict },
      next: { label: basename(file), verdict: next.aggregate.verdict },
    });
  }
  const md = pairs.map((p) => compareMarkdown(p.c, p.base, p.next)).join("\n");
  if (flags.json) {
    const objects = pairs.map((p) => compareObject(p.c, p.base, p.next));
    process.stdout.write(`${JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2)}\n`);
  } else {
    process.stdout.write(md);
  }
  if (flags.md) await writeAtomic(flags.md, md);
  if (flags.html) await writeAtomic(flags.html, compareHtml(pairs));
  return verdictStatus(
    pairs.every((p) => p.c.rankable.fingerprint.ok),
    pairs.some((p) => p.c.gates.some((g) => g.tripped)),
  );
}
