// The client's own resources (§6.16, Node figures): process CPU between start and finish, peak
// heap and RSS sampled at start, every timeline second and finish, and the main thread's
// event-loop delay. The process-wide CPU includes every worker thread.
import { cpus } from "node:os";
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

export interface ResourceFigures {
  cpuSeconds: number;
  cpuUtilisationPercent: number;
  peakHeapBytes: number;
  peakRssBytes: number;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
}

export class ResourceWatch {
  private readonly cpuStart = process.cpuUsage();
  private readonly startNs: number;
  private peakHeap = 0;
  private peakRss = 0;
  private readonly eld: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor(nowNs: number) {
    this.startNs = nowNs;
    this.eld.enable();
    this.sample();
  }

  sample(): void {
    const m = process.memoryUsage();
    if (m.heapUsed > this.peakHeap) this.peakHeap = m.heapUsed;
    if (m.rss > this.peakRss) this.peakRss = m.rss;
  }

  /** CPU seconds used so far by the whole process. */
  cpuSecondsSoFar(): number {
    const u = process.cpuUsage(this.cpuStart);
    return Math.max(0, (u.user + u.system) / 1e6);
  }

  finish(nowNs: number): ResourceFigures {
    this.sample();
    this.eld.disable();
    const cpuSeconds = this.cpuSecondsSoFar();
    const wallSeconds = (nowNs - this.startNs) / 1e9;
    const n = cpus().length || 1;
    // monitorEventLoopDelay measures in ns and includes its 10 ms sampling resolution
    const ms = (v: number) => Math.max(0, v / 1e6 - 10);
    return {
      cpuSeconds,
      cpuUtilisationPercent: wallSeconds > 0 ? (100 * cpuSeconds) / (wallSeconds * n) : 0,
      peakHeapBytes: this.peakHeap,
      peakRssBytes: this.peakRss,
      eventLoopDelayMs: {
        p50: ms(this.eld.percentile(50)),
        p99: ms(this.eld.percentile(99)),
        max: ms(this.eld.max),
      },
    };
  }
}
