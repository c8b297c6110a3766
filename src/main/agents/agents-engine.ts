// The many-host engine (docs/definitions.md#many-hosts): each shard task is one agent's share.
// warmUp hands every agent the scenario and waits until it has its clock and the send log; run
// sends each its viewers (start offsets from t0, t0 on the coordinator's wall clock), relays
// its per-second ticks as one shard's and gathers its records and shard profiles. An agent
// that is lost takes only its own viewers (agent_lost).
import { type WallAnchor, wallOf } from "../../core/clock/clock.ts";
import { cohortsJson } from "../../core/link/assign.ts";
import type { ReportInput } from "../../core/report/input.ts";
import type { HostReport } from "../../core/report/types.ts";
import { SCENARIO_DEFAULTS } from "../../core/scenario/defaults.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import type { ViewerRecord } from "../../core/types.ts";
import { emptyRecord } from "../../core/viewer-record.ts";
import type { ShardProfile, ShardTask } from "../../workers/protocol.ts";
import type { Logger } from "../observe/log.ts";
import type { Engine, EngineResult } from "../run/engine.ts";
import { type AgentFigures, figuresOk, finishInput, hostOf } from "./host-merge.ts";
import type { AgentLink } from "./hub.ts";
import { shiftRecordInstants } from "./record-clock.ts";
import { profileOk, recordOk, tickOk } from "./shapes.ts";
import { emptyTick } from "./tick-merge.ts";
import { type Message, printable } from "./wire.ts";

export interface AgentsEngineOptions {
  links: AgentLink[];
  scenario: Scenario;
  anchor: WallAnchor;
  log: Logger;
  /** how long an agent may take to be ready (clock point, send log, threads), ms */
  readyTimeoutMs?: number;
  /** messages rejected by the hub (malformed frames) so far */
  hubRejected: () => number;
}

export interface AgentsEngine extends Engine {
  finishInput(input: ReportInput): ReportInput;
}

/** One agent's share of a run, as it comes back. */
interface Share {
  link: AgentLink;
  task: ShardTask | null;
  ids: Set<number>;
  records: Map<number, ViewerRecord>;
  profiles: ShardProfile[];
  figures: AgentFigures | null;
  lastSecond: number;
}

const ZERO_THREAD = { cpuSeconds: 0, eventLoopUtilisation: 0, eventLoopDelayMs: { p50: 0, p99: 0, max: 0 } };

export function agentsEngine(opts: AgentsEngineOptions): AgentsEngine {
  const shares: Share[] = opts.links.map((link) => ({
    link,
    task: null,
    ids: new Set(),
    records: new Map(),
    profiles: [],
    figures: null,
    lastSecond: -1,
  }));
  let rejected = 0;
  const lose = (s: Share, why: string) => {
    if (s.link.lost !== null) return;
    s.link.lost = why;
    opts.log.line(`agent ${s.link.name} lost: ${why}`);
    s.link.conn.close();
    s.link.onClose(why);
  };
  const reject = (s: Share, what: string) => {
    rejected++;
    lose(s, `it sent a malformed ${what}`);
  };
  return {
    workers: opts.links.length,
    async warmUp() {
      await Promise.all(shares.map((s) => prepare(s, opts, lose)));
    },
    async run(tasks, interrupt, onTick): Promise<EngineResult> {
      const onStop = () => {
        for (const s of shares) s.link.conn.send({ type: "stop" });
      };
      interrupt.addEventListener("abort", onStop, { once: true });
      const deadline = Math.max(0, ...tasks.map((t) => t.deadlineMonoNs - t.t0MonoNs)) / 1e6;
      const grace =
        deadline + (opts.scenario.joinTimeoutSeconds ?? SCENARIO_DEFAULTS.joinTimeoutSeconds) * 1000 + 30_000;
      const guard = setTimeout(() => {
        for (const s of shares) if (s.figures === null) lose(s, "it did not finish in time");
      }, grace);
      const relay = (s: Share, i: number, m: Message) => {
        if (m.type === "tick") {
          if (!tickOk(m.tick)) {
            reject(s, "tick");
            return;
          }
          const tick = { ...m.tick, shard: i };
          if (!tick.final) s.lastSecond = Math.max(s.lastSecond, tick.second);
          // a lost or finished agent's seconds go on empty, so every later second still completes
          for (const [j, l] of shares.entries()) {
            if ((l.link.lost === null && l.figures === null) || tick.final) continue;
            while (l.lastSecond < tick.second) onTick(emptyTick(j, ++l.lastSecond, ZERO_THREAD));
          }
          onTick(tick);
        } else if (m.type === "records") {
          const list = Array.isArray(m.records) ? m.records : [null];
          for (const r of list) {
            if (!recordOk(r, s.ids)) {
              reject(s, "viewer record");
              return;
            }
            s.records.set(r.id, r);
          }
        }
      };
      try {
        const running = Promise.all(
          tasks.map((task, i) => {
            const s = shares[i] as Share;
            s.task = task;
            return runShare(s, task, opts.anchor, (m) => relay(s, i, m), reject);
          }),
        );
        // interrupted before the shares went out (during the warmup): they stop at once
        if (interrupt.aborted) onStop();
        await running;
      } finally {
        clearTimeout(guard);
        interrupt.removeEventListener("abort", onStop);
      }
      return collect(shares);
    },
    finishInput(input) {
      const hosts: HostReport[] = shares.map((s) => hostOf(s.link, s.ids.size, s.figures));
      const steps = shares.map((s) => s.figures?.clock.stepDetected === true);
      return finishInput(input, hosts, rejected + opts.hubRejected(), steps);
    },
  };
}

/**
 * The scenario as the agent's parser reads it: its cohorts in the scenario's notation (the parsed
 * profiles' keys, `delayNs` …, are not the file's).
 */
function wireScenario(s: Scenario): Record<string, unknown> {
  return s.cohorts !== undefined ? { ...s, cohorts: cohortsJson(s.cohorts) } : { ...s };
}

/** The scenario out, the agent's ready (or its failure) back. */
function prepare(s: Share, opts: AgentsEngineOptions, lose: (s: Share, why: string) => void): Promise<void> {
  if (s.link.lost !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      lose(s, "it was not ready in time");
      resolve();
    }, opts.readyTimeoutMs ?? 30_000);
    s.link.onClose = () => {
      clearTimeout(t);
      resolve();
    };
    s.link.onMessage = (m) => {
      if (m.type === "ready") {
        clearTimeout(t);
        resolve();
      } else if (m.type === "fail") {
        clearTimeout(t);
        lose(s, `it could not run the scenario: ${printable(m.reason)}`);
        resolve();
      }
    };
    s.link.conn.send({ type: "prepare", scenario: wireScenario(opts.scenario) });
  });
}

/** Sends the share, resolves when the agent is done (its figures arrived) or lost. */
function runShare(
  s: Share,
  task: ShardTask,
  anchor: WallAnchor,
  relay: (m: Message) => void,
  reject: (s: Share, what: string) => void,
): Promise<void> {
  for (const v of task.viewers) s.ids.add(v.id);
  if (s.link.lost !== null) return Promise.resolve();
  return new Promise((resolve) => {
    s.link.onClose = () => resolve();
    s.link.onMessage = (m) => {
      if (m.type !== "done") {
        relay(m);
        return;
      }
      const profiles = Array.isArray(m.profiles) ? m.profiles : [null];
      if (!profiles.every(profileOk) || !figuresOk(m.figures)) {
        reject(s, "final message");
        return;
      }
      s.profiles = profiles;
      s.figures = m.figures;
      s.link.finished = true;
      s.link.conn.send({ type: "bye" });
      resolve();
    };
    s.link.conn.send({
      type: "start",
      t0WallNs: BigInt(Math.round(wallOf(anchor, task.t0MonoNs))).toString(),
      deadlineOffsetNs: task.deadlineMonoNs - task.t0MonoNs,
      // each viewer's cohort as this run assigned it over all its viewers (absent: unimpaired)
      viewers: task.viewers.map((v) => ({
        id: v.id,
        startOffsetNs: v.startMonoNs - task.t0MonoNs,
        ...(v.cohort !== undefined ? { cohort: v.cohort } : {}),
      })),
    });
  });
}

/** Every viewer accounted for: its agent's record (its instants back on this clock) or agent_lost. */
function collect(shares: Share[]): EngineResult {
  const records: ViewerRecord[] = [];
  const profiles: ShardProfile[] = [];
  for (const s of shares) {
    const t0 = s.task?.t0MonoNs ?? 0;
    for (const id of s.ids) {
      const r = s.figures !== null ? s.records.get(id) : undefined;
      if (r === undefined) {
        const rec = emptyRecord(id, true);
        rec.errorKind = "agent_lost";
        rec.error = `the agent ${s.link.name} running this viewer was lost: ${s.link.lost ?? "it sent no record of it"}`;
        records.push(rec);
      } else {
        records.push(shiftRecordInstants(r, t0));
      }
    }
    if (s.figures !== null) for (const p of s.profiles) profiles.push({ ...p, shard: profiles.length });
  }
  return { records, profiles };
}
