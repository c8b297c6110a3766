// Shared execution of `run` and `view` (§2.5): run (with /metrics and live progress when asked),
// build the report, write the files (JSON, Markdown, HTML), print the verdict and headline on
// stdout (or the report JSON with --json, the human lines then on stderr), and map the outcome
// to an exit code.
import { buildReport } from "../core/report/build.ts";
import { delayDistribution } from "../core/report/distribution.ts";
import { reportStem, stdoutLines } from "../core/report/headline.ts";
import { reportToJson } from "../core/report/json.ts";
import { reportToMarkdown } from "../core/report/markdown.ts";
import type { Scenario } from "../core/scenario.ts";
import { type Engine, inThreadEngine } from "./engine.ts";
import { bearerFrom, UsageError } from "./flags.ts";
import { renderHtmlReport, writeHtmlReport } from "./html-report.ts";
import type { Logger } from "./log.ts";
import type { RunMetrics } from "./metrics.ts";
import { LiveRun } from "./metrics-live.ts";
import type { ProgressSink } from "./progress.ts";
import { run } from "./runner.ts";
import type { Peer } from "./split.ts";
import { writeErrorText, writeReport } from "./write-report.ts";

export interface ExecuteOptions {
  /** view only: the publisher's clock responder and send-log channel (split runs) */
  clockPeer?: Peer | undefined;
  sendLogPeer?: Peer | undefined;
  command: "run" | "view";
  scenario: Scenario;
  out: string;
  log: Logger;
  engine?: Engine;
  noStamp?: boolean;
  /** where stdout lines go (tests capture them) */
  stdout?: (line: string) => void;
  /** live progress on this sink while the run lasts (the CLI: stderr unless --quiet) */
  progress?: ProgressSink;
  /** write `<stem>.html` too (default true) */
  html?: boolean;
  /** the report JSON on stdout; the human lines go to stderr */
  json?: boolean;
  /** test hook: the /metrics registry and its URL, when the scenario serves metrics */
  onMetrics?: (metrics: RunMetrics, url: string) => void;
}

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_NO_VERDICT = 3;

/** Installs SIGINT/SIGTERM handlers for the duration of `body`: the first signal aborts, a second exits at once. */
export async function withInterrupt<T>(log: Logger, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  const onSignal = (name: string) => {
    if (ctl.signal.aborted) {
      process.stderr.write(`whipbench: second ${name}, exiting now\n`);
      process.exit(EXIT_NO_VERDICT);
    }
    log.line(`${name}: stopping; the report is still written (send it again to exit at once)`);
    ctl.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return await body(ctl.signal);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

export async function execute(opts: ExecuteOptions): Promise<number> {
  const { scenario: s, log } = opts;
  const out = opts.stdout ?? ((line: string) => process.stdout.write(`${line}\n`));
  const human = opts.json ? (line: string) => process.stderr.write(`${line}\n`) : out;
  const bearer = bearerFrom(s.bearerEnv, opts.command);
  let live: LiveRun;
  try {
    live = await LiveRun.start({
      scenario: s,
      engine:
        opts.engine ??
        inThreadEngine({ liveDelays: opts.progress !== undefined || (s.metrics ?? "") !== "" }),
      log,
      ...(opts.progress ? { progress: opts.progress } : {}),
      ...(opts.onMetrics ? { onMetrics: opts.onMetrics } : {}),
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    process.stderr.write(`whipbench ${opts.command}: --metrics: cannot listen: ${(err as Error).message}\n`);
    return EXIT_ERROR;
  }
  try {
    const input = await withInterrupt(live.log, (interrupt) =>
      run({
        command: opts.command,
        scenario: s,
        bearer,
        engine: live.engine,
        log: live.log,
        interrupt,
        noStamp: opts.noStamp ?? false,
        ...(live.onTick ? { onTick: live.onTick } : {}),
        onPublisher: (p) => live.setPublisher(p),
        clockPeer: opts.clockPeer,
        sendLogPeer: opts.sendLogPeer,
      }),
    );
    if (input.publisher) live.setPublisher(input.publisher);
    await live.close();
    const report = buildReport(input);
    log.line(report.aggregate.verdict);
    const stem = reportStem(input.startedAtUnixNs, s.name ?? "");
    const json = reportToJson(report);
    let files: { json: string; markdown: string };
    let html: string | null = null;
    try {
      files = await writeReport(opts.out, stem, json, reportToMarkdown(report));
      if (opts.html ?? true) {
        const page = await renderHtmlReport(report, delayDistribution(input, report));
        html = await writeHtmlReport(opts.out, stem, page);
      }
    } catch (err) {
      process.stderr.write(`whipbench ${opts.command}: ${writeErrorText(err)}\n`);
      return EXIT_ERROR;
    }
    for (const line of stdoutLines(report)) human(line);
    human(`wrote ${files.json}`);
    human(`wrote ${files.markdown}`);
    if (html !== null) human(`wrote ${html}`);
    if (opts.json) out(json.replace(/\n$/, ""));
    return report.aggregate.valid ? EXIT_OK : EXIT_NO_VERDICT;
  } finally {
    await live.close();
  }
}
