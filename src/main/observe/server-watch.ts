// The server's resources beside a run: a same-host process's CPU and RSS from /proc
// (--server-pid) and chosen series of a Prometheus text endpoint (--server-metrics with
// --server-series), sampled once a second and kept with their monotonic instant, so any window
// (a capacity step's) can be summarised afterwards. A figure that could not be measured is
// unavailable with its reason, never a 0; endpoint failures name the host only, never the path
// or the query.
import { monoNs } from "../../core/clock/clock.ts";
import { UsageError } from "../../core/errors.ts";
import { type PromSelector, parsePromSelector } from "../../core/prom/text-format.ts";
import { host } from "../../core/redact.ts";
import { readProc } from "./server-proc.ts";
import { scrapeSeries } from "./server-scrape.ts";
import {
  type ProcSample,
  procWindow,
  type ScrapeSample,
  type SeriesFigure,
  seriesWindow,
} from "./server-window.ts";

export type { SeriesFigure } from "./server-window.ts";

export interface ServerWatchOptions {
  /** a process on this host (Linux /proc) */
  pid?: number;
  /** a Prometheus text-format endpoint */
  metricsUrl?: string;
  /** the series of the endpoint to keep: `name` or `name{label="v",…}` (every matching series summed) */
  series?: string[];
  /** sampling period (default 1000 ms) */
  intervalMs?: number;
  /** samples older than this are dropped (default one hour) */
  keepMs?: number;
}

export interface Unavailable {
  unavailable: string;
}

export interface ServerWindow {
  /** CPU cores the process used: over the window, and the busiest sampling interval in it */
  cpuCores: { mean: number; max: number } | Unavailable;
  rssMiB: { max: number; last: number } | Unavailable;
  /** by selector, as given */
  series: Record<string, SeriesFigure>;
}

const NOT_WATCHED = "not watched";

export class ServerWatch {
  readonly intervalMs: number;
  private readonly pid: number | undefined;
  private readonly url: string | undefined;
  private readonly selectors: { text: string; sel: PromSelector }[];
  private readonly maxSamples: number;
  private readonly proc: ProcSample[] = [];
  private readonly scrapes: ScrapeSample[] = [];
  /** why the process is no longer read, and since when (monotonic ns) */
  private procEnd: { atMonoNs: number; reason: string } | null = null;
  private startTicks: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;

  private constructor(opts: ServerWatchOptions) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.pid = opts.pid;
    this.url = opts.metricsUrl;
    this.selectors = [...new Set((opts.series ?? []).map((s) => s.trim()))].map((text) => {
      const sel = parsePromSelector(text);
      // internal: invariant, --server-series checked each selector (cli/server-watch-flags.ts)
      if (sel === null) throw new Error(`not a series selector: ${JSON.stringify(text)}`);
      return { text, sel };
    });
    this.maxSamples = Math.ceil((opts.keepMs ?? 3_600_000) / this.intervalMs) + 1;
  }

  /** Starts sampling; resolves once the first sample was taken (so a window from now has its start). */
  static async start(opts: ServerWatchOptions): Promise<ServerWatch> {
    const w = new ServerWatch(opts);
    await w.tick();
    w.timer = setInterval(() => void w.tick().catch(() => {}), w.intervalMs);
    w.timer.unref();
    return w;
  }

  /** Summary of the samples taken in [fromMonoNs, toMonoNs]. */
  window(fromMonoNs: number, toMonoNs: number): ServerWindow {
    const series: Record<string, SeriesFigure> = {};
    for (const [i, { text }] of this.selectors.entries()) {
      series[text] = this.url
        ? seriesWindow(this.scrapes, i, text, fromMonoNs, toMonoNs)
        : { unavailable: NOT_WATCHED };
    }
    if (this.pid === undefined) {
      return { cpuCores: { unavailable: NOT_WATCHED }, rssMiB: { unavailable: NOT_WATCHED }, series };
    }
    if (this.procEnd && this.procEnd.atMonoNs <= toMonoNs) {
      const gone = { unavailable: this.procEnd.reason };
      return { cpuCores: gone, rssMiB: gone, series };
    }
    return { ...procWindow(this.proc, fromMonoNs, toMonoNs, this.intervalMs), series };
  }

  /** Stops sampling (after the sample in progress, if any). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  private tick(): Promise<void> {
    if (this.inFlight) return this.inFlight; // a slow scrape: skip this beat rather than pile up
    this.inFlight = Promise.all([this.sampleProc(), this.sampleMetrics()])
      .then(() => {})
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async sampleProc(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined || this.procEnd) return;
    const at = monoNs();
    const r = await readProc(pid);
    const reused = !("missing" in r) && this.startTicks !== null && r.startTicks !== this.startTicks;
    if ("missing" in r || reused) {
      const why = "missing" in r ? r.missing : "not found";
      // once read, a process that is gone (or whose PID now names another process) has exited
      const exited = this.startTicks !== null && !why.startsWith("unreadable");
      const reason = exited ? `exited at ${new Date().toISOString()}` : why;
      this.procEnd = { atMonoNs: at, reason: `process ${pid} ${reason}` };
      return;
    }
    this.startTicks = r.startTicks;
    push(this.proc, { monoNs: at, cpuSeconds: r.cpuSeconds, rssBytes: r.rssBytes }, this.maxSamples);
  }

  private async sampleMetrics(): Promise<void> {
    const url = this.url;
    if (url === undefined) return;
    const timeoutMs = Math.min(2000, Math.max(100, Math.round(this.intervalMs * 0.8)));
    const sent = monoNs();
    const r = await scrapeSeries(
      url,
      this.selectors.map((s) => s.sel),
      timeoutMs,
    );
    const at = sent + (monoNs() - sent) / 2;
    const sample: ScrapeSample =
      "error" in r
        ? { monoNs: at, error: `metrics endpoint ${host(url)}: ${r.error}` }
        : { monoNs: at, ...r };
    push(this.scrapes, sample, this.maxSamples);
  }
}

function push<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

export interface ServerWatchFlags {
  serverPid?: number;
  serverMetrics?: string;
  serverSeries?: string[];
}

/** The watch the flags ask for, or null when none; the pairs that make no sense are UsageErrors. */
export function serverWatchOptions(flags: ServerWatchFlags): ServerWatchOptions | null {
  const { serverPid: pid, serverMetrics: metricsUrl, serverSeries: series } = flags;
  if (series?.length && metricsUrl === undefined) {
    throw new UsageError("--server-series: needs --server-metrics (the endpoint to scrape)");
  }
  if (metricsUrl !== undefined && !series?.length) {
    throw new UsageError("--server-metrics: name the series to keep with --server-series NAME[,NAME…]");
  }
  if (pid === undefined && metricsUrl === undefined) return null;
  const opts: ServerWatchOptions = {};
  if (pid !== undefined) opts.pid = pid;
  if (metricsUrl !== undefined) {
    opts.metricsUrl = metricsUrl;
    opts.series = series ?? [];
  }
  return opts;
}
