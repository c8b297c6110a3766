// The run's reference viewers (docs/definitions.md#reference-viewers): K libwebrtc viewers per
// group of the load, each in a process of its own (reference-child.ts), so they take nothing from
// the load engine's threads. Their processes start and load libwebrtc once the publisher is
// connected (`prepare`; the run waits for them, `loaded`, before its warm-up); they join with the
// load's viewers (t0), stop at the viewers' deadline (or an interrupt), and hand the report each
// one's getStats figures, or why there are none. A package that is missing, a codec libwebrtc
// cannot decode, a child that fails: each is a reason in the report, never a failure of the run.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ReferenceFigures } from "../../core/reference/figures.ts";
import { type ReferenceResult, referencePlan, referenceScenarioProblem } from "../../core/reference/plan.ts";
import { buildSchedule } from "../../core/scenario/schedule.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { Logger } from "../observe/log.ts";
import type { ReferenceChildSettings } from "./reference-child.ts";
import { type ModuleLoader, wrtcMissing } from "./wrtc.ts";

const CHILD = new URL(`./reference-child${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);
/** How long a stopped reference viewer has to hand its figures over before it is killed. */
const STOP_GRACE_MS = 15_000;
const STATS_EVERY_MS = 1000;
/** The longest a run waits for its reference viewers to load libwebrtc before the viewers' phase. */
const LOAD_WAIT_MS = 10_000;

export interface ReferenceViewerOptions {
  scenario: Scenario;
  bearer: string | undefined;
  log: Logger;
  /** each reading of a reference viewer's cumulative figures (for /metrics) */
  onFigures?: ((group: string, index: number, figures: ReferenceFigures) => void) | undefined;
  /** how the package is looked for (tests pass one that finds nothing) */
  loader?: ModuleLoader;
}

interface Child {
  group: string;
  index: number;
  proc: ChildProcess | null;
  result: ReferenceResult;
  closed: Promise<void>;
  /** resolves when it has loaded libwebrtc (or ended) */
  loaded: Promise<void>;
  markLoaded: () => void;
}

export class ReferenceViewers {
  private readonly children: Child[] = [];
  private readonly opts: ReferenceViewerOptions;
  private readonly problem: string | null;
  private stopTimer: NodeJS.Timeout | null = null;
  private prepared = false;

  /** The run's reference viewers, or null when the scenario asks for none. */
  static forRun(opts: ReferenceViewerOptions): ReferenceViewers | null {
    return referencePlan(opts.scenario).length === 0 ? null : new ReferenceViewers(opts);
  }

  private constructor(opts: ReferenceViewerOptions) {
    this.opts = opts;
    this.problem = referenceScenarioProblem(opts.scenario) ?? wrtcMissing(opts.loader);
    for (const g of referencePlan(opts.scenario)) {
      for (let index = 0; index < g.viewers; index++) {
        const reason = this.problem ?? "the load's viewers never started";
        this.children.push({
          group: g.group,
          index,
          proc: null,
          result: { group: g.group, reason },
          closed: Promise.resolve(),
          loaded: Promise.resolve(),
          markLoaded: () => {},
        });
      }
    }
    if (this.problem !== null) opts.log.line(`reference viewers unavailable: ${this.problem}`);
  }

  /** Before t0: every reference viewer's process starts and loads libwebrtc. */
  prepare(): void {
    if (this.prepared || this.problem !== null) return;
    this.prepared = true;
    const s = this.opts.scenario;
    const settings: ReferenceChildSettings = {
      whep: s.whep,
      ...(this.opts.bearer !== undefined ? { bearer: this.opts.bearer } : {}),
      loopbackOnly: s.loopbackOnly === true,
      statsEveryMs: STATS_EVERY_MS,
      maxSeconds: buildSchedule(s).viewersPhaseNs / 1e9 + (s.joinTimeoutSeconds ?? 10) + 30,
    };
    for (const c of this.children) this.spawn(c, settings);
  }

  /**
   * Resolves once every reference viewer has loaded libwebrtc (or ended), or after `maxMs`: their
   * start-up then takes no CPU from the viewers' joins.
   */
  async loaded(maxMs = LOAD_WAIT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxMs);
    });
    await Promise.race([Promise.all(this.children.map((c) => c.loaded)), bound]);
    clearTimeout(timer);
  }

  /** With the load's viewers (t0): every reference viewer joins; all stop `phaseMs` later. */
  start(phaseMs: number, interrupt: AbortSignal): void {
    if (!this.prepared) return;
    for (const c of this.children) if (c.proc?.stdin?.writable) c.proc.stdin.write("start\n");
    this.opts.log.line(`reference viewers: ${this.children.length} libwebrtc viewers join beside the load`);
    this.stopTimer = setTimeout(() => this.stop(), phaseMs);
    interrupt.addEventListener("abort", () => this.stop(), { once: true });
  }

  private spawn(c: Child, settings: ReferenceChildSettings): void {
    const proc = spawn(process.execPath, [fileURLToPath(CHILD)], { stdio: ["pipe", "pipe", "pipe"] });
    c.proc = proc;
    c.result = { group: c.group, reason: "it ended before it handed over its figures" };
    let buffered = "";
    let stderr = "";
    proc.stdout?.setEncoding("utf8").on("data", (d: string) => {
      buffered += d;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        this.onLine(c, buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf("\n");
      }
    });
    proc.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr = (stderr + d).slice(-300);
    });
    proc.stdin?.on("error", () => {});
    proc.stdin?.write(`${JSON.stringify(settings)}\n`);
    c.loaded = new Promise((resolve) => {
      c.markLoaded = resolve;
    });
    c.closed = new Promise((resolve) =>
      proc.on("close", (code, signal) => {
        if (c.result.figures === undefined && c.result.reason?.startsWith("it ended") && (code || signal)) {
          const last = stderr.trim().split("\n").pop() ?? "";
          c.result.reason = `it exited (${signal ?? `status ${code}`}) before it handed over its figures${last ? `: ${last}` : ""}`;
        }
        c.markLoaded();
        resolve();
      }),
    );
  }

  private onLine(c: Child, text: string): void {
    let m: { type?: string; figures?: ReferenceFigures; measuredMs?: number; reason?: string };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return;
    }
    if (m.type === "ready") c.markLoaded();
    else if (m.type === "stats" && m.figures) this.opts.onFigures?.(c.group, c.index, m.figures);
    else if (m.type === "final" && m.figures) {
      this.opts.onFigures?.(c.group, c.index, m.figures);
      c.result = { group: c.group, figures: m.figures, measuredMs: m.measuredMs ?? 0 };
    } else if ((m.type === "failed" || m.type === "unavailable") && m.reason) {
      c.result = { group: c.group, reason: m.reason };
    }
  }

  /** The reference viewers' process ids (bench/reference-cost.ts reads their CPU and memory). */
  processIds(): number[] {
    return this.children.flatMap((c) => (c.proc?.pid !== undefined ? [c.proc.pid] : []));
  }

  /** Asks every reference viewer to stop (idempotent). */
  stop(): void {
    if (this.stopTimer !== null) clearTimeout(this.stopTimer);
    this.stopTimer = null;
    for (const c of this.children) if (c.proc?.stdin?.writable) c.proc.stdin.end("stop\n");
  }

  /** Stops them, waits for each one's figures (killed after a grace), and hands back the outcomes. */
  async finish(): Promise<ReferenceResult[]> {
    this.stop();
    const killer = setTimeout(() => {
      for (const c of this.children) if (c.proc !== null && c.proc.exitCode === null) c.proc.kill("SIGKILL");
    }, STOP_GRACE_MS);
    await Promise.all(this.children.map((c) => c.closed));
    clearTimeout(killer);
    return this.children.map((c) => c.result);
  }
}
