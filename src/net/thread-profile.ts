// Self-profiling of the thread a shard runs on: CPU time of this thread alone, event-loop
// utilisation and event-loop delay, over the whole run and per second. The figures say how
// much of a one-way delay sample is this client's own queueing.
import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { StampSourceSeen } from "../core/scenario/defaults.ts";

/** Sampling resolution of the event-loop delay monitor; it is subtracted from every reading. */
const ELD_RESOLUTION_MS = 2;
/**
 * A viewer thread's (docs/definitions.md#client-resources): its timer wakes the thread whatever
 * arrives, ~25 µs of thread CPU each on these VMs, ~12 ms a second at 2 ms (a thread of 25
 * viewers receives ~1 700 packets a second: ~7 µs each) and ~3.5 ms at 10 (bench/README.md,
 * "Waking for datagrams").
 */
export const VIEWER_ELD_RESOLUTION_MS = 10;

export interface DelayFigures {
  p50: number;
  p99: number;
  max: number;
}

export interface ThreadFigures {
  cpuSeconds: number;
  eventLoopUtilisation: number;
  eventLoopDelayMs: DelayFigures;
  /**
   * a viewer thread's receive lag (src/workers/receive/intake.ts): how long its media datagrams may have
   * waited inside the thread before their stamp, ms; absent when the thread stamped none
   */
  receiveLagMs?: DelayFigures;
  /** which clock stamped those datagrams (docs/definitions.md#arrival-stamps); with receiveLagMs */
  stampSource?: StampSourceSeen;
  /** from a datagram's arrival stamp to the start of its processing (receive lag + the intake's queue), ms */
  processingWaitMs?: DelayFigures;
}

type Elu = ReturnType<typeof performance.eventLoopUtilization>;

function threadCpuSeconds(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1e6;
}

function delayFigures(h: IntervalHistogram, resolutionMs: number): DelayFigures {
  if (h.count === 0) return { p50: 0, p99: 0, max: 0 };
  const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

export class ThreadProfile {
  private readonly resolutionMs: number;
  private readonly run: IntervalHistogram;
  private readonly second: IntervalHistogram;
  private readonly eluStart: Elu = performance.eventLoopUtilization();
  private eluLast: Elu = this.eluStart;
  private readonly cpuStart = threadCpuSeconds();
  private cpuLast = this.cpuStart;

  /** `resolutionMs`: how often the event-loop delay monitor's timer fires. */
  constructor(resolutionMs = ELD_RESOLUTION_MS) {
    this.resolutionMs = resolutionMs;
    this.run = monitorEventLoopDelay({ resolution: resolutionMs });
    this.second = monitorEventLoopDelay({ resolution: resolutionMs });
    this.run.enable();
    this.second.enable();
  }

  /** Figures since the previous call (one timeline second), then resets the per-second monitor. */
  tick(): ThreadFigures {
    const now = performance.eventLoopUtilization();
    const cpu = threadCpuSeconds();
    const out: ThreadFigures = {
      cpuSeconds: Math.max(0, cpu - this.cpuLast),
      eventLoopUtilisation: performance.eventLoopUtilization(now, this.eluLast).utilization,
      eventLoopDelayMs: delayFigures(this.second, this.resolutionMs),
    };
    this.second.reset();
    this.eluLast = now;
    this.cpuLast = cpu;
    return out;
  }

  /** Figures over the whole life of the profile; stops the monitors. */
  finish(): ThreadFigures {
    const out: ThreadFigures = {
      cpuSeconds: Math.max(0, threadCpuSeconds() - this.cpuStart),
      eventLoopUtilisation: performance.eventLoopUtilization(this.eluStart).utilization,
      eventLoopDelayMs: delayFigures(this.run, this.resolutionMs),
    };
    this.run.disable();
    this.second.disable();
    return out;
  }
}
