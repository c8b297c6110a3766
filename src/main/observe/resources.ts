// The client's own resources (docs/definitions.md#client-resources, Node figures): process CPU
// between start and finish, peak heap and RSS sampled at start, every timeline second and finish.
// The process-wide CPU includes every worker thread.
import { cpus } from "node:os";

export interface ResourceFigures {
  cpuSeconds: number;
  /** absent when no wall time elapsed (never a 0 for "not measured") */
  cpuUtilisationPercent?: number;
  peakHeapBytes: number;
  peakRssBytes: number;
}

export class ResourceWatch {
  private readonly cpuStart = process.cpuUsage();
  private readonly startNs: number;
  private peakHeap = 0;
  private peakRss = 0;

  constructor(nowNs: number) {
    this.startNs = nowNs;
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
    const cpuSeconds = this.cpuSecondsSoFar();
    const wallSeconds = (nowNs - this.startNs) / 1e9;
    const n = cpus().length || 1;
    return {
      cpuSeconds,
      ...(wallSeconds > 0 ? { cpuUtilisationPercent: (100 * cpuSeconds) / (wallSeconds * n) } : {}),
      peakHeapBytes: this.peakHeap,
      peakRssBytes: this.peakRss,
    };
  }
}
