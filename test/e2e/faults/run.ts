// A whole `run` or `view` in this process, as the CLI does it (runAndReport: run, build, write the
// report files), viewers in the main thread, and what it left: the exit code, the report as
// written (parsed back from the JSON file), the Markdown, the files and the log.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Report } from "../../../src/core/report/types.ts";
import {
  normaliseScenario,
  type Scenario,
  validateScenario,
} from "../../../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../../../src/main/observe/log.ts";
import { inThreadEngine } from "../../../src/main/run/engine.ts";
import { runAndReport } from "../../../src/main/run/run-and-report.ts";
import { tempDir } from "../cli-harness.ts";

export interface WrittenRun {
  code: number;
  report: Report;
  markdown: string;
  files: string[];
  stdout: string[];
  log: string[];
}

/** A short scenario: ramp 1 s, hold 3 s, warmup 0.5 s, join timeout 2 s, exclude first 0.5 s. */
export function faultScenario(whip: string | null, whep: string, over: Partial<Scenario> = {}): Scenario {
  const s: Scenario = {
    name: "faults",
    whep,
    codec: "vp8",
    viewers: 2,
    rampSeconds: 1,
    holdSeconds: 3,
    warmupSeconds: 0.5,
    joinTimeoutSeconds: 2,
    excludeFirstSeconds: 0.5,
    loopbackOnly: true,
    ...over,
  };
  if (whip !== null) s.whip = whip;
  return s;
}

export async function runAndWrite(command: "run" | "view", scenario: Scenario): Promise<WrittenRun> {
  const s = normaliseScenario(scenario);
  validateScenario(s);
  const tmp = tempDir("faults");
  const log = memoryLogger();
  const stdout: string[] = [];
  try {
    const code = await runAndReport({
      command,
      scenario: s,
      out: tmp.dir,
      log,
      engine: inThreadEngine(),
      stdout: (l) => stdout.push(l),
      html: false,
    });
    const files = readdirSync(tmp.dir).sort();
    const json = files.find((f) => f.endsWith(".json"));
    if (!json)
      throw new Error(`no report written (exit ${code}): ${files.join(", ")}\n${log.lines.join("\n")}`);
    return {
      code,
      report: JSON.parse(readFileSync(join(tmp.dir, json), "utf8")) as Report,
      markdown: readFileSync(join(tmp.dir, json.replace(/\.json$/, ".md")), "utf8"),
      files,
      stdout,
      log: log.lines,
    };
  } finally {
    tmp.remove();
  }
}

/** The viewers of a report that failed with `kind`. */
export function failedWith(r: Report, kind: string) {
  return (r.viewers ?? []).filter((v) => v.errorKind === kind);
}
