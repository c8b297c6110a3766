// Live progress on stderr while a run lasts: on a terminal one status line rewritten each
// second; otherwise a log line every few seconds. It works once a second from the runner's
// per-second hook and never touches a viewer's packet path; log lines written meanwhile clear
// the status line first and redraw it after.
import { ceilingVerdict, type ThreadLoad } from "../../core/report/ceiling.ts";
import type { TimelineEntry } from "../../core/report/types.ts";
import { LiveQuantiles } from "../../core/stats/live-quantiles.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";
import type { ShardTick } from "../../workers/protocol.ts";
import type { Logger } from "./log.ts";
import { logLine, type ProgressState, statusLine } from "./progress-line.ts";
import { threadLoad } from "./thread-load.ts";
import { udpErrorsDelta, udpReceiveErrors } from "./udp-drops.ts";

/** Seconds of one-way delay samples behind the live p50/p99. */
export const DELAY_WINDOW_S = 5;
/** A log line every this many seconds when stderr is not a terminal. */
export const LOG_EVERY_S = 5;

export interface ProgressSink {
  isTTY: boolean;
  columns?: number;
  /** seconds between log lines when not a terminal (default LOG_EVERY_S) */
  logEveryS?: number;
  write(text: string): void;
}

export interface ProgressOptions {
  sink: ProgressSink;
  log: Logger;
  viewersTarget: number;
  /** the scenario has churn: viewersTarget counts places */
  churn?: boolean;
  plannedS: number;
  /** the shard's `thread` label: "main" with --workers 0, else "worker N" */
  threadName: (shard: number) => string;
}

type Tick = Pick<ShardTick, "shard" | "joined" | "failed" | "delaySamples" | "socketDrops"> & {
  thread?: ShardTick["thread"];
};

export class Progress {
  private readonly opts: ProgressOptions;
  private readonly window = new LiveQuantiles(DELAY_WINDOW_S);
  private readonly udpStart = udpReceiveErrors();
  private joined = 0;
  private failed = 0;
  private shown = "";
  private lastLogS = 0;
  private stopped = false;

  constructor(opts: ProgressOptions) {
    this.opts = opts;
  }

  /** The logger to use while the progress shows: it keeps the status line out of log lines. */
  wrap(inner: Logger): Logger {
    return {
      line: (message) => {
        const redraw = this.shown;
        this.clear();
        inner.line(message);
        if (redraw !== "" && !this.stopped) this.draw(redraw);
      },
    };
  }

  /**
   * One timeline second (all shards' ticks); `main` is the main thread's own second when it runs no
   * viewers.
   */
  update(entry: TimelineEntry, ticks: readonly Tick[], main?: ThreadFigures): void {
    if (this.stopped) return;
    this.window.advance();
    const threads: ThreadLoad[] = [];
    for (const t of ticks) {
      this.joined += t.joined;
      this.failed += t.failed;
      this.window.record(t.delaySamples);
      if (t.thread !== undefined) {
        const load = threadLoad(this.opts.threadName(t.shard), t.thread);
        // the kernel's drops on the thread's own sockets so far (the host's counter is context)
        if (t.socketDrops !== undefined) load.socketDrops = t.socketDrops;
        threads.push(load);
      }
    }
    if (main !== undefined) threads.push(threadLoad("main", main));
    const q = this.window.quantilesNs([50, 99]);
    const udp = udpErrorsDelta(this.udpStart, udpReceiveErrors());
    const eld = threads.length > 0 ? Math.max(...threads.map((t) => t.eventLoopDelayP99Ms)) : null;
    const state: ProgressState = {
      elapsedS: entry.t,
      plannedS: this.opts.plannedS,
      viewersTarget: this.opts.viewersTarget,
      ...(this.opts.churn ? { churn: true } : {}),
      joined: this.joined,
      active: entry.active,
      failed: this.failed,
      packetsPerS: entry.packets,
      delayP50Ms: q ? q[0]! / 1e6 : null,
      delayP99Ms: q ? q[1]! / 1e6 : null,
      cpuPercent: entry.cpuPercent ?? null,
      eventLoopDelayMs:
        entry.eventLoopDelayMs !== undefined ? Math.max(entry.eventLoopDelayMs, eld ?? 0) : eld,
      receiveLagMs: entry.receiveLagMs ?? null,
      stampSource: stampOf(threads),
      ceiling: ceilingVerdict(threads, udp).evidence,
    };
    if (this.opts.sink.isTTY) {
      this.draw(statusLine(state, this.opts.sink.columns || 120));
    } else if (entry.t - this.lastLogS >= (this.opts.sink.logEveryS ?? LOG_EVERY_S)) {
      this.lastLogS = entry.t;
      this.opts.log.line(logLine(state));
    }
  }

  /** A shard's final flush: its last partial second counts towards the joined/failed totals. */
  final(tick: Tick): void {
    this.joined += tick.joined;
    this.failed += tick.failed;
  }

  /** The run is over: the status line goes. */
  stop(): void {
    this.clear();
    this.stopped = true;
  }

  private draw(line: string): void {
    this.opts.sink.write(`\r\x1b[2K${line}`);
    this.shown = line;
  }

  private clear(): void {
    if (this.shown === "") return;
    this.opts.sink.write("\r\x1b[2K");
    this.shown = "";
  }
}

/**
 * The viewer threads' stamp source over a second: one name, "mixed" when they differ, null when
 * none stamped.
 */
function stampOf(threads: readonly ThreadLoad[]): string | null {
  const kinds = new Set(threads.flatMap((t) => (t.stampSource === undefined ? [] : [t.stampSource])));
  return kinds.size === 0 ? null : kinds.size === 1 ? [...kinds][0]! : "mixed";
}
