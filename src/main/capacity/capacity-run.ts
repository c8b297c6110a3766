// The capacity search run (docs/definitions.md#capacity-search): one session, steps chosen by the
// search, each step's report built and judged exactly like a run's and kept beside the capacity
// report, the server's resources over each step's measured window when asked, and with a
// Pushgateway each step's metrics pushed while it lasts and at its end, beside which step runs
// (docs/definitions.md#pushgateway).
import { mkdir } from "node:fs/promises";
import { CapacitySearch } from "../../core/capacity/search.ts";
import { judgeStep, measuredFromNs, stepFigures } from "../../core/capacity/step.ts";
import type { CapacitySpec, CapacityStep, StepServer } from "../../core/capacity/types.ts";
import { monoNs } from "../../core/clock/clock.ts";
import { fmtFixed } from "../../core/go-compat/fmt.ts";
import type { CeilingThresholds } from "../../core/report/ceiling.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { Logger } from "../observe/log.ts";
import type { PublisherCounters } from "../observe/metrics.ts";
import { LiveRun } from "../observe/metrics-live.ts";
import type { PushOptions } from "../observe/push.ts";
import { finishReport, jsonOutput } from "../output/outputs.ts";
import type { Engine } from "../run/engine.ts";
import { Gate } from "../run/gate.ts";
import { CapacityMetrics } from "./capacity-metrics.ts";
import { CapacitySession, stepScenario } from "./session.ts";

/** The server side's figures over a window of the monotonic clock (server-watch.ts). */
export interface ServerSampler {
  window(fromMonoNs: number, toMonoNs: number): StepServer;
}

export interface CapacityRunOptions {
  scenario: Scenario;
  spec: CapacitySpec;
  bearer: string | undefined;
  engine: Engine;
  log: Logger;
  interrupt: AbortSignal;
  /** where each step's report JSON goes, and its name relative to the capacity report */
  stepDir: { path: string; relative: string };
  server?: ServerSampler | undefined;
  /** thresholds of the client's ceiling (tests make them tiny) */
  ceiling?: CeilingThresholds;
  /** --push-gateway: each step's metrics and the search's own pushed while the search lasts */
  push?: PushOptions | undefined;
}

export interface CapacityRunResult {
  search: CapacitySearch;
  steps: CapacityStep[];
  wallSeconds: number;
}

/** A progress line every 5 s of a step: the second, the active viewers, packets/s. */
function stepProgress(log: Logger, label: () => string): (entry: TimelineEntry | null) => void {
  return (entry) => {
    if (entry === null || entry.t === 0 || entry.t % 5 !== 0) return;
    log.line(`${label()}: t=${entry.t}s active ${entry.active}, ${entry.packets} packets/s`);
  };
}

function figuresLine(step: CapacityStep): string {
  const f = step.figures;
  const parts = [`joined ${f.joined}/${step.viewers}`];
  if (f.oneWayDelayP99Ms !== undefined) parts.push(`delay p99 ${fmtFixed(f.oneWayDelayP99Ms, 1)} ms`);
  if (f.lossPercent !== undefined) parts.push(`loss ${fmtFixed(f.lossPercent, 3)}%`);
  if (f.frozenP95Percent !== undefined) parts.push(`frozen p95 ${fmtFixed(f.frozenP95Percent, 2)}%`);
  if (f.receiveLagP99Ms !== undefined) {
    parts.push(
      `receive lag p99 ${fmtFixed(f.receiveLagP99Ms, 2)} ms${f.stampSource ? ` (${f.stampSource} stamps)` : ""}`,
    );
  }
  const cpu = step.server?.cpuCores;
  if (cpu !== undefined && "mean" in cpu) parts.push(`server ${fmtFixed(cpu.mean, 2)} cores`);
  return parts.join(", ");
}

/** A step's registry pushed with the search's own series (none without --push-gateway). */
async function stepLive(
  opts: CapacityRunOptions,
  s: Scenario,
  pushed: CapacityMetrics | null,
  publisher: PublisherCounters | null,
): Promise<LiveRun | null> {
  if (pushed === null || opts.push === undefined) return null;
  const live = await LiveRun.start({
    scenario: s,
    engine: opts.engine,
    log: opts.log,
    push: opts.push,
    pushAlso: pushed.registry,
  });
  if (publisher !== null) live.setPublisher(publisher);
  return live;
}

export async function capacityRun(opts: CapacityRunOptions): Promise<CapacityRunResult> {
  const search = new CapacitySearch(opts.spec);
  const steps: CapacityStep[] = [];
  const begin = monoNs();
  const sinceS = (mono: number) => (mono - begin) / 1e9;
  let label = "";
  const progress = stepProgress(opts.log, () => label);
  await mkdir(opts.stepDir.path, { recursive: true, mode: 0o750 });
  const pushed = opts.push ? new CapacityMetrics() : null;
  let publisher: PublisherCounters | null = null;
  const session = await CapacitySession.open({
    command: "run",
    scenario: opts.scenario,
    bearer: opts.bearer,
    engine: opts.engine,
    log: opts.log,
    interrupt: opts.interrupt,
    onTick: progress,
    onPublisher: (p) => (publisher = p),
    ...(opts.ceiling ? { ceiling: opts.ceiling } : {}),
  });
  try {
    if (session.publisherFailed) {
      search.record(opts.spec.start, { kind: "no-verdict", reason: "the publisher did not connect" });
    }
    for (let n = search.next(); n !== null; n = search.next()) {
      const index = steps.length + 1;
      label = `step ${index} (${n} viewers)`;
      const s = stepScenario(opts.scenario, opts.spec, n, index === 1);
      opts.log.line(
        `${label}: ramp ${s.rampSeconds}s, hold ${s.holdSeconds}s, settle ${opts.spec.settleSeconds}s`,
      );
      // a threshold with abortOnFail ends its step early once it fails live, as it ends a run
      const gate = new Gate(s, opts.log, "step");
      pushed?.stepStarted(index, n);
      const live = await stepLive(opts, s, pushed, publisher);
      let run: Awaited<ReturnType<typeof session.step>>;
      try {
        run = await session.step(s, opts.interrupt, gate.signal(opts.interrupt), {
          onTick: (entry, ticks) => {
            gate.tick(entry, ticks);
            progress(entry);
            live?.tick(entry, ticks);
          },
          ...(live ? { onShardTick: (tick) => live.shardTick(tick) } : {}),
        });
      } catch (err) {
        await live?.close();
        throw err;
      }
      const stem = `step-${String(index).padStart(2, "0")}-${n}v`;
      const { report } = await finishReport({
        input: run.input,
        judge: (r) => gate.judge(r),
        dir: opts.stepDir.path,
        stem,
        outputs: [jsonOutput],
      });
      const outcome = judgeStep(report, opts.interrupt.aborted);
      const measuredFrom = measuredFromNs(s, opts.spec.settleSeconds, run);
      const step: CapacityStep = {
        index,
        viewers: n,
        window: {
          startS: sinceS(run.startMonoNs),
          measuredFromS: sinceS(measuredFrom),
          endS: sinceS(run.endMonoNs),
        },
        outcome: outcome.kind,
        verdict: report.aggregate.verdict,
        thresholds: report.thresholds ?? [],
        ...(report.client.ceiling ? { ceiling: report.client.ceiling } : {}),
        figures: stepFigures(report),
        ...(opts.server ? { server: opts.server.window(measuredFrom, run.endMonoNs) } : {}),
        report: `${opts.stepDir.relative}/${stem}.json`,
      };
      steps.push(step);
      opts.log.line(`${label}: ${outcome.kind}: ${figuresLine(step)}`);
      // the step's final values go with its outcome counted
      pushed?.stepEnded(outcome.kind);
      await live?.close();
      search.record(n, outcome);
    }
  } finally {
    await session.close();
    await opts.engine.close?.();
  }
  return { search, steps, wallSeconds: sinceS(monoNs()) };
}
