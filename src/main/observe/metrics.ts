// Live Prometheus metrics of a run (docs/definitions.md#prometheus-metrics) on prom-client: the
// main thread owns the one registry; shards (in the main thread or in workers) send per-second
// deltas in their ticks and `applyTick` adds them. Families 1–14 have the reference's names, types,
// labels and buckets; after them come what the Node engine adds (per-worker event loop and CPU,
// RSS, kernel UDP receive errors); with cohorts, the per-cohort families come last
// (metrics-cohorts.ts), then, with reference viewers, theirs (metrics-reference.ts). No family has
// a per-viewer label.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ReferenceFigures } from "../../core/reference/figures.ts";
import { pairsTotalNs } from "../../core/report/frozen-seconds.ts";
import type { DelaySource } from "../../core/report/types.ts";
import { TICK_COUNTS, type TickCounts } from "../../core/tick-counts.ts";
import { CohortMetrics, type CohortTarget, type LiveCohortTick } from "./metrics-cohorts.ts";
import { CountFamilies } from "./metrics-counts.ts";
import { LayerMetrics, type LiveLayerTick } from "./metrics-layers.ts";
import { registerProcessMetrics } from "./metrics-process.ts";
import { ReferenceMetrics, type ReferenceTarget } from "./metrics-reference.ts";

/** docs/definitions.md#prometheus-metrics bucket bounds, seconds. */
export const TRANSIT_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];
export const DELAY_BUCKETS_S = [
  0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
];

/**
 * What one shard's tick carries that the metrics use (a structural subset of ShardTick): the
 * counts of core/tick-counts.ts (`active` a level, the rest deltas), then the samples.
 */
export interface LiveTick extends TickCounts {
  shard: number;
  /** one-way delay samples (fingerprint), ns, taken exactly where a viewer's block takes one */
  delaySamples: readonly number[];
  /** one-way delay samples of the `stamp` source, ns (when the shard collects them) */
  stampSamples?: readonly number[];
  /** packet transit samples, ns (when the shard collects them) */
  transitSamples?: readonly number[];
  /** the shard thread's own load over the tick's second */
  thread?: {
    cpuSeconds: number;
    eventLoopUtilisation: number;
    eventLoopDelayMs: { p99: number };
    receiveLagMs?: { p99: number };
  };
  /** with cohorts: each cohort's part of the tick */
  cohorts?: readonly LiveCohortTick[];
  /** with simulcast: the layers' figures since the previous tick */
  layers?: LiveLayerTick;
  /** freezes counted since the previous tick, and their frozen viewer-time as [second, ns] pairs */
  freezes?: number;
  frozenNs?: readonly number[];
}

/** One thread's load over the last second (fed per tick, or by whoever measures a thread). */
export interface WorkerLoad {
  /** "main", or the shard number of a worker thread */
  worker: string;
  /** p99 event-loop delay over the last second, ms */
  eventLoopDelayMs: number;
  /** event-loop utilisation over the last second, 0..1 */
  utilisation: number;
  /** CPU seconds this thread used over that second */
  cpuSeconds?: number;
  /** p99 receive lag of a viewer thread over the last second, ms (absent: none stamped) */
  receiveLagMs?: number;
}

export interface PublisherCounters {
  readonly packetsSent: number;
  readonly framesSent: number;
  /** p99 of the publisher's send lag so far, ns; null before a frame was stamped at the socket */
  sendLagP99Ns?: () => number | null;
}

export interface RunMetricsOptions {
  viewersTarget: number;
  /** sources declared (count 0) before their first sample; `fingerprint` always is */
  delaySources?: readonly DelaySource[];
  /** the `worker` label of a shard's thread; default: the shard number */
  workerLabel?: (shard: number) => string;
  /** with cohorts: each cohort and "unimpaired" with its assigned viewers (the per-cohort families) */
  cohorts?: readonly CohortTarget[];
  /** with reference viewers: each group and how many (docs/definitions.md#reference-viewer-metrics) */
  reference?: readonly ReferenceTarget[];
  /** with simulcast: the layers' rids, lowest first (docs/definitions.md#layer-metrics) */
  layers?: readonly string[];
}

/** The publisher's packets and frames sent, read from its live counters at each scrape. */
function publisherSentCounters(registers: Registry[], publisher: () => PublisherCounters | null): void {
  const fromPublisher = (key: "packetsSent" | "framesSent") =>
    function (this: Counter) {
      this.reset();
      this.inc(publisher()?.[key] ?? 0);
    };
  new Counter({
    name: "whipbench_publisher_rtp_packets_sent_total",
    help: "RTP packets the publisher wrote.",
    registers,
    collect: fromPublisher("packetsSent"),
  });
  new Counter({
    name: "whipbench_publisher_frames_sent_total",
    help: "Frames the publisher wrote.",
    registers,
    collect: fromPublisher("framesSent"),
  });
}

/**
 * What the viewers would have seen (docs/definitions.md#viewer-experience-metrics): freezes and
 * frozen seconds, counted when each freeze ends.
 */
function freezeCounters(registers: Registry[]): { freezes: Counter; frozen: Counter } {
  return {
    freezes: new Counter({
      name: "whipbench_freezes_total",
      help: "Freezes the viewers counted, as a browser counts them (counted when the freeze ends).",
      registers,
    }),
    frozen: new Counter({
      name: "whipbench_frozen_seconds_total",
      help: "Seconds the viewers' pictures were frozen, summed over viewers (counted when each freeze ends).",
      registers,
    }),
  };
}

export class RunMetrics {
  readonly registry = new Registry();
  private readonly counts: CountFamilies<never>;
  private readonly transit: Histogram;
  private readonly delay: Histogram<"source">;
  private readonly eld: Gauge<"worker">;
  private readonly elu: Gauge<"worker">;
  private readonly lag: Gauge<"worker">;
  private readonly workerCpu: Counter<"worker">;
  private readonly freezes: Counter;
  private readonly frozen: Counter;
  private readonly sources = new Set<string>(["fingerprint", "stamp"] satisfies DelaySource[]);
  private readonly workerLabel: (shard: number) => string;
  private publisher: PublisherCounters | null = null;
  private readonly cohorts: CohortMetrics | null;
  private readonly reference: ReferenceMetrics | null;
  private readonly layers: LayerMetrics | null;

  // long on purpose: one declaration per family, in the exposition's order, reads as the table of
  // families it is (test/unit/prom-text.ts holds the same table); the publisher's sent counters
  // are declared in publisherSentCounters, in their place.
  constructor(opts: RunMetricsOptions) {
    const registers = [this.registry];
    const self = this;
    this.workerLabel = opts.workerLabel ?? ((s) => String(s));
    new Gauge({ name: "whipbench_viewers_target", help: "Viewers the scenario asks for.", registers }).set(
      opts.viewersTarget,
    );
    this.counts = new CountFamilies(registers, TICK_COUNTS);
    publisherSentCounters(registers, () => self.publisher);
    this.transit = new Histogram({
      name: "whipbench_packet_transit_seconds",
      help: "Packet transit from the abs-capture-time stamp to arrival, seconds.",
      buckets: TRANSIT_BUCKETS_S,
      registers,
    });
    this.delay = new Histogram({
      name: "whipbench_one_way_delay_seconds",
      help: "One-way delay per frame, seconds, by source; observed exactly where a viewer's report block takes a sample.",
      labelNames: ["source"],
      buckets: DELAY_BUCKETS_S,
      registers,
    });
    for (const source of new Set(["fingerprint", ...(opts.delaySources ?? [])])) this.delay.zero({ source });
    registerProcessMetrics(this.registry);
    this.eld = new Gauge({
      name: "whipbench_worker_event_loop_delay_p99_seconds",
      help: "p99 event-loop delay of a thread that runs viewers (or the main thread) over the last second, seconds.",
      labelNames: ["worker"],
      registers,
    });
    this.elu = new Gauge({
      name: "whipbench_worker_event_loop_utilisation_ratio",
      help: "Event-loop utilisation of a thread that runs viewers (or the main thread) over the last second, 0..1.",
      labelNames: ["worker"],
      registers,
    });
    this.lag = new Gauge({
      name: "whipbench_worker_receive_lag_p99_seconds",
      help: "p99 receive lag of a thread that runs viewers over the last second: how long its media datagrams may have waited inside the thread before their arrival stamp, seconds (an upper bound).",
      labelNames: ["worker"],
      registers,
    });
    new Gauge({
      name: "whipbench_publisher_send_lag_p99_seconds",
      help: "p99 of the publisher's send lag so far: a frame's start of sending to its first packet at the socket, seconds.",
      registers,
      collect() {
        const ns = self.publisher?.sendLagP99Ns?.() ?? null;
        if (ns !== null) this.set(ns / 1e9);
      },
    });
    this.workerCpu = new Counter({
      name: "whipbench_worker_cpu_seconds_total",
      help: "CPU seconds used by one thread (user+system), from the thread's own per-second figures.",
      labelNames: ["worker"],
      registers,
    });
    ({ freezes: this.freezes, frozen: this.frozen } = freezeCounters(registers));
    const cohorts = opts.cohorts ?? [];
    this.cohorts = cohorts.length > 0 ? new CohortMetrics(this.registry, cohorts, DELAY_BUCKETS_S) : null;
    const reference = opts.reference ?? [];
    this.reference = reference.length > 0 ? new ReferenceMetrics(this.registry, reference) : null;
    const rids = opts.layers ?? [];
    this.layers = rids.length > 0 ? new LayerMetrics(this.registry, rids, DELAY_BUCKETS_S) : null;
  }

  /** A reference viewer's cumulative getStats figures (`cohort`: its group's name or "unimpaired"). */
  applyReference(cohort: string, index: number, figures: ReferenceFigures): void {
    this.reference?.apply(cohort, index, figures);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text (text format 0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The publisher whose live counters families 8 and 9 read at each scrape. */
  setPublisher(p: PublisherCounters): void {
    this.publisher = p;
  }

  /** Adds one shard's per-second deltas (the final partial tick included). */
  applyTick(t: LiveTick): void {
    this.counts.apply(t.shard, t);
    this.observeDelays("fingerprint", t.delaySamples);
    if (t.stampSamples !== undefined) this.observeDelays("stamp", t.stampSamples);
    if (t.transitSamples !== undefined) {
      for (const ns of t.transitSamples) if (ns >= 0) this.transit.observe(ns / 1e9);
    }
    this.freezes.inc(t.freezes ?? 0);
    this.frozen.inc(pairsTotalNs(t.frozenNs ?? []) / 1e9);
    if (t.cohorts !== undefined) this.cohorts?.apply(t.shard, t.cohorts);
    if (t.layers !== undefined) this.layers?.apply(t.layers);
    if (t.thread !== undefined) {
      this.observeWorker({
        worker: this.workerLabel(t.shard),
        eventLoopDelayMs: t.thread.eventLoopDelayMs.p99,
        utilisation: t.thread.eventLoopUtilisation,
        cpuSeconds: t.thread.cpuSeconds,
        ...(t.thread.receiveLagMs !== undefined ? { receiveLagMs: t.thread.receiveLagMs.p99 } : {}),
      });
    }
  }

  /** One-way delay samples (ns) of a source; negative samples and unknown sources are dropped. */
  observeDelays(source: string, samplesNs: readonly number[]): void {
    if (samplesNs.length === 0 || !this.sources.has(source)) return;
    const child = this.delay.labels({ source });
    for (const ns of samplesNs) if (ns >= 0) child.observe(ns / 1e9);
  }

  /** One thread's load over the last second. */
  observeWorker(w: WorkerLoad): void {
    const labels = { worker: w.worker };
    this.eld.set(labels, Math.max(0, w.eventLoopDelayMs) / 1e3);
    this.elu.set(labels, Math.max(0, w.utilisation));
    if (w.receiveLagMs !== undefined) this.lag.set(labels, Math.max(0, w.receiveLagMs) / 1e3);
    if (w.cpuSeconds !== undefined && w.cpuSeconds > 0) this.workerCpu.inc(labels, w.cpuSeconds);
    else this.workerCpu.inc(labels, 0);
  }
}
