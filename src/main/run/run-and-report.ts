// A run and its report, as `run`, `view`, `matrix` and a many-host coordinator do it
// (docs/definitions.md#console-output): run (with /metrics and live progress when asked) under
// the signal handlers, build and judge the report, write its files (JSON, Markdown, HTML, the
// gate's), print the verdict and headline on stdout (or the report JSON with --json, the human
// lines then on stderr), and map the outcome to an exit status.
import type { WallAnchor } from "../../core/clock/clock.ts";
import { errorMessage, RunError, UsageError, verdictStatus } from "../../core/errors.ts";
import { reportStem, stdoutLines } from "../../core/report/headline.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { Report } from "../../core/report/types.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { Logger } from "../observe/log.ts";
import type { RunMetrics } from "../observe/metrics.ts";
import { LiveRun } from "../observe/metrics-live.ts";
import type { ProgressSink } from "../observe/progress.ts";
import type { PushOptions } from "../observe/push.ts";
import {
  finishReport,
  htmlOutput,
  jsonOutput,
  junitOutput,
  markdownOutput,
  type Output,
  summaryOutput,
} from "../output/outputs.ts";
import { prepareOutputDir, writeErrorText } from "../output/write-report.ts";
import { endWithError, withInterrupt } from "../process/exit.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import type { FrameSent } from "../publisher/send-instant.ts";
import type { HostPort } from "../split/split-peers.ts";
import { type Engine, inThreadEngine } from "./engine.ts";
import { liveDelaysWanted } from "./engine-choice.ts";
import { Gate, type GateFiles, thresholdsFailed } from "./gate.ts";
import { run } from "./runner.ts";

export interface RunAndReportOptions {
  /** view only: the publisher's clock responder and send-log channel (split runs) */
  clockPeer?: HostPort | undefined;
  sendLogPeer?: HostPort | undefined;
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
  /** --junit and --summary-md */
  gateFiles?: GateFiles;
  /** every frame the publisher sent (a many-host run serves them to its agents) */
  onFrameSent?: FrameSent;
  /** the wall anchor the run must share (a many-host coordinator's) */
  anchor?: WallAnchor;
  /** the in-process built-in relay's sockets' drops so far (the no-scenario `run`) */
  relaySocketDrops?: () => number | string;
  /** a many-host run adds its hosts, their clocks and ceilings to what the run hands the report */
  finishInput?: (input: ReportInput) => ReportInput;
  /** test hook: the /metrics registry and its URL, when the scenario serves metrics */
  onMetrics?: (metrics: RunMetrics, url: string) => void;
  /** --push-gateway: the run's metrics pushed while it lasts and at its end */
  push?: PushOptions | undefined;
}

export async function runAndReport(opts: RunAndReportOptions): Promise<number> {
  const { scenario: s, log } = opts;
  const bearer = tokenFromEnv("--bearer-env", s.bearerEnv, opts.command);
  const engine =
    opts.engine ?? inThreadEngine({ liveDelays: liveDelaysWanted(s, opts.progress !== undefined) });
  let live: LiveRun;
  try {
    live = await LiveRun.start({
      scenario: s,
      engine,
      log,
      ...(opts.progress ? { progress: opts.progress } : {}),
      ...(opts.onMetrics ? { onMetrics: opts.onMetrics } : {}),
      push: opts.push,
    });
  } catch (err) {
    // a bad address is the user's (exit 2, from the command line); one that cannot listen ends the run
    if (err instanceof UsageError) throw err;
    return endWithError(
      new RunError(`--metrics: cannot listen: ${errorMessage(err)}`, { cause: err }),
      opts.command,
    );
  }
  try {
    // an output directory that cannot be written fails now, not after the run
    try {
      await prepareOutputDir(opts.out);
    } catch (err) {
      return endWithError(
        new RunError(`--out ${opts.out}: ${writeErrorText(err)}`, { cause: err }),
        opts.command,
      );
    }
    // the handlers stay until the report is written: a signal while writing still ends in a
    // complete report marked interrupted (exit 3); a second one exits at once
    return await withInterrupt(live.log, async (interrupt) => {
      const gate = new Gate(s, live.log);
      const ran = await run({
        command: opts.command,
        scenario: s,
        bearer,
        engine,
        log: live.log,
        interrupt: gate.signal(interrupt),
        noStamp: opts.noStamp ?? false,
        onTick: (entry, ticks) => {
          gate.tick(entry, ticks);
          live.tick(entry, ticks);
        },
        onShardTick: (tick) => live.shardTick(tick),
        onReferenceFigures: (group, index, figures) => live.referenceFigures(group, index, figures),
        onPublisher: (p) => live.setPublisher(p),
        clockPeer: opts.clockPeer,
        sendLogPeer: opts.sendLogPeer,
        ...(opts.onFrameSent ? { onFrameSent: opts.onFrameSent } : {}),
        ...(opts.anchor ? { anchor: opts.anchor } : {}),
        ...(opts.relaySocketDrops ? { relaySocketDrops: opts.relaySocketDrops } : {}),
      });
      // a threshold's live stop is not an interrupt: only a signal marks the report interrupted
      const input = { ...(opts.finishInput?.(ran) ?? ran), interrupted: interrupt.aborted };
      if (input.publisher) live.setPublisher(input.publisher);
      await live.close();
      try {
        // a signal before or while the files are written marks the report interrupted; one that
        // comes while they are written has them written again
        let done = await writeFiles(opts, gate, interrupt.aborted ? { ...input, interrupted: true } : input);
        if (interrupt.aborted && !done.report.interrupted) {
          done = await writeFiles(opts, gate, { ...input, interrupted: true });
        }
        printOutcome(opts, done);
        return verdictStatus(done.report.aggregate.valid, thresholdsFailed(done.report));
      } catch (err) {
        return endWithError(new RunError(writeErrorText(err), { cause: err }), opts.command);
      }
    });
  } finally {
    await live.close();
  }
}

interface Written {
  report: Report;
  json: string;
  files: string[];
}

/** The files a run's report goes to: JSON, Markdown, HTML unless off, then the gate's. */
function runOutputs(opts: RunAndReportOptions): Output[] {
  const { junit, summaryMd } = opts.gateFiles ?? {};
  return [
    jsonOutput,
    markdownOutput,
    ...((opts.html ?? true) ? [htmlOutput] : []),
    ...(junit !== undefined && junit !== "" ? [junitOutput(junit)] : []),
    ...(summaryMd !== undefined && summaryMd !== "" ? [summaryOutput(summaryMd)] : []),
  ];
}

/** Builds, judges and writes the report (runOutputs). */
function writeFiles(opts: RunAndReportOptions, gate: Gate, input: ReportInput): Promise<Written> {
  return finishReport({
    input,
    judge: (r) => gate.judge(r),
    log: opts.log,
    dir: opts.out,
    stem: reportStem(input.startedAtUnixNs, opts.scenario.name ?? ""),
    outputs: runOutputs(opts),
  });
}

/**
 * The docs/definitions.md#console-output lines: verdict and headline, the files written; with
 * --json the report on stdout.
 */
function printOutcome(opts: RunAndReportOptions, w: Written): void {
  const out = opts.stdout ?? ((line: string) => process.stdout.write(`${line}\n`));
  const human = opts.json ? (line: string) => process.stderr.write(`${line}\n`) : out;
  for (const line of stdoutLines(w.report)) human(line);
  for (const f of w.files) human(`wrote ${f}`);
  if (opts.json) out(w.json.replace(/\n$/, ""));
}
