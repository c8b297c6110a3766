// A split run's view of the publisher (docs/definitions.md#a-run-step-by-step step 5,
// docs/definitions.md#clock-exchange): the clock exchange against `--clock-peer` (a point at the
// start, every 30 s while viewers run, and at the end; a piecewise-linear model) and, with
// `--send-log-peer`, a local replica of the publisher's send log whose send instants are moved onto
// this process's monotonic clock with the offset in force when each entry arrives; and which peers
// a run's options ask for (openSplitPeers). The peers' addresses never reach a log line or the report.

import type { WallAnchor } from "../../core/clock/clock.ts";
import { OffsetModel, type Probe } from "../../core/clock/exchange.ts";
import { type ClipIdentity, ClipTable } from "../../core/delay/fingerprint.ts";
import { SendLog } from "../../core/delay/sendlog.ts";
import { errorMessage } from "../../core/errors.ts";
import type { SendStamps } from "../../core/report/input.ts";
import type { ClockBlock } from "../../core/report/types.ts";
import type { Logger } from "../observe/log.ts";
import { ClockClient } from "./clock-exchange.ts";
import { followSendLog } from "./sendlog-channel.ts";

/** Where a split run's peer listens: the publisher's clock exchange or send-log channel. */
export interface HostPort {
  host: string;
  port: number;
}

export interface SplitOptions {
  clockPeer?: HostPort | undefined;
  sendLogPeer?: HostPort | undefined;
  bearer: string | undefined;
  anchor: WallAnchor;
  log: Logger;
  /** mid-run clock points this often (30 s; tests shorten it) */
  clockIntervalMs?: number;
}

export class SplitPeers {
  private readonly opts: SplitOptions;
  private client: ClockClient | null = null;
  private clockReason: string | undefined;
  private readonly model = new OffsetModel();
  private timer: NodeJS.Timeout | undefined;
  private readonly stop = new AbortController();
  /** the publisher's wall clock minus this process's monotonic clock, ns, at [0] (shared with workers) */
  readonly publisherWallMinusMono = new SharedArrayBuffer(8);
  sendLog: SendLog | null = null;
  /** the publisher's send instants by source, as its entries said (none: an older publisher) */
  readonly sendStamps: SendStamps = { kernel: 0, handover: 0 };
  identity: ClipIdentity | null = null;
  table: ClipTable | null = null;

  constructor(opts: SplitOptions) {
    this.opts = opts;
    this.setOffset(0);
  }

  private setOffset(offsetNs: number): void {
    new Float64Array(this.publisherWallMinusMono)[0] =
      this.opts.anchor.wallNs - this.opts.anchor.monoNs + offsetNs;
  }

  private offsetNow(): number {
    const last = this.model.points[this.model.points.length - 1];
    return last ? last.offsetNs : 0;
  }

  /** The start point (when there is a clock peer), then the send log (when there is a peer). */
  async start(): Promise<void> {
    const { clockPeer, sendLogPeer, log } = this.opts;
    if (clockPeer) {
      try {
        this.client = await ClockClient.open(this.opts.anchor, clockPeer.host.includes(":"));
      } catch {
        this.clockReason = "no UDP socket for the clock exchange";
        log.line("no UDP socket for the clock exchange");
      }
      await this.point("start");
    }
    if (sendLogPeer) {
      const a = this.opts.anchor;
      const identity = await followSendLog(
        sendLogPeer.host,
        sendLogPeer.port,
        this.opts.bearer,
        this.stop.signal,
        (k, t0Wall, i, kernel) => {
          // the publisher's wall instant → this process's monotonic clock, with the offset in force now
          this.sendLog?.record(k, t0Wall - this.offsetNow() - a.wallNs + a.monoNs, i);
          if (kernel !== undefined) this.sendStamps[kernel ? "kernel" : "handover"]++;
        },
      );
      this.identity = identity;
      this.table = new ClipTable(null, identity);
      this.sendLog = SendLog.create(identity.fingerprints.length);
      log.line(
        `following the publisher's send log (${identity.codec}, ${identity.fingerprints.length} frames)`,
      );
    }
    if (this.client) {
      this.timer = setInterval(() => void this.point("mid-run"), this.opts.clockIntervalMs ?? 30_000);
    }
  }

  async point(when: "start" | "mid-run" | "end"): Promise<void> {
    const peer = this.opts.clockPeer;
    if (!this.client || !peer) return;
    let p: Probe;
    try {
      p = await this.client.measure(peer.host, peer.port, this.stop.signal);
    } catch (err) {
      this.opts.log.line(`clock peer (${when}): no point, skipped: ${errorMessage(err)}`);
      return;
    }
    this.model.add(p);
    this.setOffset(p.offsetNs);
    this.opts.log.line(
      `clock peer (${when}): offset ${(p.offsetNs / 1e6).toFixed(3)} ms ± ${(p.rttNs / 2e6).toFixed(3)} ms`,
    );
  }

  /** The end point, then everything stops. */
  async finish(): Promise<void> {
    clearInterval(this.timer);
    await this.point("end");
    this.stop.abort();
    await this.client?.close();
  }

  /**
   * docs/definitions.md#clock-block clock block of a split run; `startMonoNs` is startedAt on the
   * monotonic clock.
   */
  clockBlock(startMonoNs: number, stepDetected: boolean): ClockBlock {
    if (!this.opts.clockPeer) return { method: "none", stepDetected: false };
    const first = this.model.points[0];
    const uncertainty = this.model.uncertaintyMs();
    if (!first || uncertainty === null) {
      return { method: "none", reason: this.clockReason ?? "clock peer did not answer", stepDetected };
    }
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    return {
      method: "exchange",
      offsetMs: r3(first.offsetNs / 1e6),
      uncertaintyMs: uncertainty,
      points: this.model.points.map((p) => ({
        tS: r3((p.atMonoNs - startMonoNs) / 1e9),
        offsetMs: r3(p.offsetNs / 1e6),
        rttMs: r3(p.rttNs / 1e6),
      })),
      stepDetected,
    };
  }
}

/** What a run's options say about a split run's peers. */
export interface SplitPeerOptions {
  clockPeer?: HostPort | undefined;
  sendLogPeer?: HostPort | undefined;
  bearer: string | undefined;
  log: Logger;
  clockIntervalMs?: number;
}

/** A split run's clock and send-log peers; a run that publishes ignores a clock peer. */
export function openSplitPeers(
  opts: SplitPeerOptions,
  publishing: boolean,
  anchor: WallAnchor,
): SplitPeers | null {
  if (!publishing && (opts.clockPeer || opts.sendLogPeer)) {
    return new SplitPeers({
      clockPeer: opts.clockPeer,
      sendLogPeer: opts.sendLogPeer,
      bearer: opts.bearer,
      anchor,
      log: opts.log,
      ...(opts.clockIntervalMs !== undefined ? { clockIntervalMs: opts.clockIntervalMs } : {}),
    });
  }
  if (publishing && opts.clockPeer) {
    opts.log.line("clock peer ignored: this run publishes, so one monotonic clock reads both ends");
  }
  return null;
}
