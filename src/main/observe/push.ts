// Pushing the run's metrics to a Prometheus Pushgateway (docs/definitions.md#pushgateway): the
// same registry /metrics serves, PUT (replacing the group) under a job and an instance label every
// interval while the run lasts and once more with the final values when it ends, so a short CI run
// that nothing scrapes still leaves its figures. A failed push is a line on stderr, never the
// run's end; the lines name the gateway's host only, and the bearer token is never printed.
import { Pushgateway, type Registry } from "prom-client";
import { errorMessage } from "../../core/errors.ts";
import { host } from "../../core/redact.ts";
import type { Logger } from "./log.ts";

export interface PushOptions {
  /** the gateway's base URL (http or https) */
  url: string;
  job: string;
  instance: string;
  /** ns between pushes while the run lasts */
  intervalNs: number;
  /** bearer token (from the variable --push-token-env names) */
  token?: string | undefined;
}

/** Bound on one push, so the final push cannot hold the run's end. */
const PUSH_TIMEOUT_MS = 5000;

/** What a failed push says: the status or the transport's word, never the URL or the token. */
function pushFailure(err: unknown): string {
  const text = errorMessage(err);
  const status = /push failed with status (\d+)/.exec(text);
  if (status) return `HTTP ${status[1]}`;
  const code = (err as { code?: string } | null)?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET") return "connection reset";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  if (/timed out/.test(text)) return "timed out";
  return "request failed";
}

export class MetricsPusher {
  private readonly gateway: Pushgateway<"text/plain; version=0.0.4; charset=utf-8">;
  private readonly opts: PushOptions;
  private readonly log: Logger;
  private readonly where: string;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private lastFailure = "";
  /** pushes the gateway accepted */
  pushed = 0;

  constructor(registry: Registry, opts: PushOptions, log: Logger) {
    this.opts = opts;
    this.log = log;
    this.where = host(opts.url);
    const headers: Record<string, string> = {};
    if (opts.token) headers["Authorization"] = `Bearer ${opts.token}`;
    this.gateway = new Pushgateway(opts.url, { timeout: PUSH_TIMEOUT_MS, headers }, registry);
  }

  /** Pushes every interval until `finish`. */
  start(): void {
    this.log.line(
      `pushing metrics to the Pushgateway at ${this.where} every ${this.opts.intervalNs / 1e9} s (job ${this.opts.job}, instance ${this.opts.instance})`,
    );
    this.timer = setInterval(() => {
      // one push at a time: a slow gateway skips a beat rather than piling requests up
      if (this.inFlight === null) this.inFlight = this.pushOnce().finally(() => (this.inFlight = null));
    }, this.opts.intervalNs / 1e6);
    this.timer.unref();
  }

  /** The run is over: the interval stops and the final values go once (after any push in flight). */
  async finish(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
    await this.pushOnce();
    if (this.lastFailure === "")
      this.log.line(`pushed the final metrics to the Pushgateway at ${this.where} (${this.pushed} pushes)`);
  }

  private async pushOnce(): Promise<void> {
    try {
      await this.gateway.push({ jobName: this.opts.job, groupings: { instance: this.opts.instance } });
      this.pushed++;
      this.lastFailure = "";
    } catch (err) {
      const why = pushFailure(err);
      // one line per new failure, not one a second
      if (why !== this.lastFailure) this.log.line(`push to the Pushgateway at ${this.where} failed: ${why}`);
      this.lastFailure = why;
    }
  }
}
