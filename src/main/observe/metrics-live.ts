// What a run shows while it lasts, wired in one place: the /metrics registry and its server, the
// progress display, and the main thread's own per-second figures when viewers run in workers.
// The registry takes every shard tick as the engine delivers it (the final flush included, the
// runner's `onShardTick`), so its totals end equal to the report's; progress works from the
// runner's per-second entries (`onTick`).
import { Registry } from "prom-client";
import { cohortSizes } from "../../core/link/assign.ts";
import { UNIMPAIRED } from "../../core/link/parse.ts";
import type { ReferenceFigures } from "../../core/reference/figures.ts";
import { referencePlan } from "../../core/reference/plan.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import { buildSchedule } from "../../core/scenario/schedule.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import { type ThreadFigures, ThreadProfile } from "../../net/thread-profile.ts";
import type { ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "./log.ts";
import { type PublisherCounters, RunMetrics } from "./metrics.ts";
import type { CohortTarget } from "./metrics-cohorts.ts";
import type { ReferenceTarget } from "./metrics-reference.ts";
import { type MetricsServer, serveMetrics } from "./metrics-server.ts";
import { Progress, type ProgressSink } from "./progress.ts";
import { MetricsPusher, type PushOptions } from "./push.ts";

export interface LiveOptions {
  scenario: Scenario;
  /** what the registry reads of the engine: its worker threads (0: viewers in the main thread) */
  engine: { readonly workers: number };
  log: Logger;
  /** a progress display on this sink; none when absent */
  progress?: ProgressSink;
  /** test hook: the registry and the URL it is served at */
  onMetrics?: (metrics: RunMetrics, url: string) => void;
  /** push the registry to a Pushgateway while the run lasts and at its end */
  push?: PushOptions | undefined;
  /** series pushed beside the run's (a capacity search's own: which step runs) */
  pushAlso?: Registry;
}

/**
 * Each cohort and the unimpaired viewers with the viewers the scenario assigns to it; none without
 * cohorts.
 */
function cohortTargets(s: Scenario): { cohorts?: CohortTarget[] } {
  const cohorts = s.cohorts ?? [];
  if (cohorts.length === 0) return {};
  const sizes = cohortSizes(cohorts, s.viewers);
  const rest = s.viewers - sizes.reduce((a, b) => a + b, 0);
  return {
    cohorts: [
      ...cohorts.map((c, i) => ({ name: c.name, viewers: sizes[i] ?? 0 })),
      { name: UNIMPAIRED, viewers: rest },
    ],
  };
}

/** The groups with reference viewers and how many each (docs/definitions.md#reference-viewer-metrics). */
function referenceTargets(s: Scenario): { reference?: ReferenceTarget[] } {
  const plan = referencePlan(s);
  if (plan.length === 0) return {};
  return {
    reference: plan.map((g) => ({ cohort: g.group === "" ? UNIMPAIRED : g.group, viewers: g.viewers })),
  };
}

export class LiveRun {
  readonly log: Logger;
  readonly metrics: RunMetrics | null;
  private readonly server: MetricsServer | null;
  private readonly progress: Progress | null;
  private readonly mainProfile: ThreadProfile | null;
  private readonly pusher: MetricsPusher | null;
  private closing: Promise<void> | null = null;

  private constructor(opts: LiveOptions, metrics: RunMetrics | null, server: MetricsServer | null) {
    this.metrics = metrics;
    this.server = server;
    const pushed =
      opts.pushAlso && metrics ? Registry.merge([metrics.registry, opts.pushAlso]) : metrics?.registry;
    this.pusher = pushed && opts.push ? new MetricsPusher(pushed, opts.push, opts.log) : null;
    const workers = opts.engine.workers;
    this.progress = opts.progress
      ? new Progress({
          sink: opts.progress,
          log: opts.log,
          viewersTarget: opts.scenario.viewers,
          ...(opts.scenario.churn !== undefined ? { churn: true } : {}),
          plannedS: buildSchedule(opts.scenario).viewersPhaseNs / 1e9,
          threadName: (shard) => (workers === 0 ? "main" : `worker ${shard}`),
        })
      : null;
    this.log = this.progress ? this.progress.wrap(opts.log) : opts.log;
    // with workers the main thread runs no shard: it is measured here, once a second
    this.mainProfile = workers > 0 && (metrics || this.progress) ? new ThreadProfile() : null;
  }

  /**
   * Starts the metrics server when the scenario names an address (throws when it cannot listen),
   * and the pushes to a Pushgateway when asked; the registry exists when either does.
   */
  static async start(opts: LiveOptions): Promise<LiveRun> {
    const addr = opts.scenario.metrics ?? "";
    if (addr === "" && opts.push === undefined) return new LiveRun(opts, null, null);
    const metrics = new RunMetrics({
      viewersTarget: opts.scenario.viewers,
      workerLabel: opts.engine.workers === 0 ? () => "main" : (shard) => String(shard),
      ...cohortTargets(opts.scenario),
      ...referenceTargets(opts.scenario),
      ...(opts.scenario.simulcast !== undefined ? { layers: opts.scenario.simulcast } : {}),
    });
    let server: MetricsServer | null = null;
    if (addr !== "") {
      server = await serveMetrics(addr, metrics);
      opts.log.line(`metrics on ${server.url}`);
      opts.onMetrics?.(metrics, server.url);
    }
    const live = new LiveRun(opts, metrics, server);
    live.pusher?.start();
    return live;
  }

  /** A reference viewer's cumulative getStats figures (`group` "" for the unimpaired viewers). */
  referenceFigures(group: string, index: number, figures: ReferenceFigures): void {
    this.metrics?.applyReference(group === "" ? UNIMPAIRED : group, index, figures);
  }

  /** The publisher whose counters /metrics reads at each scrape. */
  setPublisher(p: PublisherCounters): void {
    this.metrics?.setPublisher(p);
  }

  /**
   * Every shard tick as the engine delivers it, before the timeline: the registry's totals end
   * equal to the report's.
   */
  shardTick(tick: ShardTick): void {
    this.metrics?.applyTick(tick);
  }

  /**
   * The per-second hook (`entry` null for a shard's final flush): the progress display and the main
   * thread's figures.
   */
  tick(entry: TimelineEntry | null, ticks: ShardTick[]): void {
    if (entry === null) {
      for (const t of ticks) this.progress?.final(t);
      return;
    }
    let main: ThreadFigures | undefined;
    if (this.mainProfile) {
      main = this.mainProfile.tick();
      this.metrics?.observeWorker({
        worker: "main",
        eventLoopDelayMs: main.eventLoopDelayMs.p99,
        utilisation: main.eventLoopUtilisation,
        cpuSeconds: main.cpuSeconds,
      });
    }
    this.progress?.update(entry, ticks, main);
  }

  /**
   * The run is over: the status line goes, the server closes (2 s grace for scrapes in flight), the
   * final values go to the Pushgateway.
   */
  close(): Promise<void> {
    if (this.closing === null) {
      this.progress?.stop();
      this.mainProfile?.finish();
      // the final push after the run's last figures, beside the server's grace for scrapes
      this.closing = Promise.all([this.server?.close(), this.pusher?.finish()]).then(() => {});
    }
    return this.closing;
  }
}
