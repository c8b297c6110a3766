// Simulated agents for the coordinator's side of a many-host run (bench:coordinator and
// test/unit/agents-merge.test.ts): fake agent links whose messages are real wire frames (encoded
// ahead, decoded by the real FrameReader), carrying realistic per-second ticks and final
// records whose histograms hold known samples, fed into the real agents engine.
import { monoNs, takeWallAnchor } from "../src/core/clock/clock.ts";
import { mulberry32 } from "../src/core/compare/bootstrap.ts";
import { DelayHistogram } from "../src/core/stats/summaries.ts";
import type { ViewerRecord } from "../src/core/types.ts";
import { emptyRecord } from "../src/core/viewer-record.ts";
import { type AgentsEngine, agentsEngine } from "../src/main/agents/agents-engine.ts";
import type { AgentFigures } from "../src/main/agents/host-merge.ts";
import type { AgentLink } from "../src/main/agents/hub.ts";
import { emptyTick } from "../src/main/agents/tick-merge.ts";
import { encodeFrame, FrameReader, type Message } from "../src/main/agents/wire.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import type { ShardProfile, ShardTask, ShardTick } from "../src/workers/protocol.ts";

export interface SimOptions {
  agents: number;
  viewersPerAgent: number;
  seconds: number;
  /** frames per second each viewer times (one delay sample each) */
  fps: number;
  seed?: number;
}

/** A delay sample in ns: a few ms with a long tail. */
function delayNs(r: () => number): number {
  return Math.round(2e6 + 3e6 * r() + (r() < 0.01 ? 80e6 * r() : 0));
}

export function syntheticRecord(id: number, samples: number[]): ViewerRecord {
  const rec = emptyRecord(id, true);
  rec.joined = true;
  rec.oneWayDelayBlocker = { kind: "none" };
  const h = new DelayHistogram();
  for (const ns of samples) h.recordNs(ns);
  rec.delayHist = h.encode();
  rec.delayDeltaHist = h.encode();
  rec.stampHist = h.encode();
  rec.transitHist = h.encode();
  rec.oneWayDelay.samples = samples.length;
  rec.oneWayDelay.completeFrames = samples.length;
  rec.rtp.received = samples.length * 3;
  rec.rtp.expected = samples.length * 3;
  rec.postMonoNs = 1e6 * id;
  // what it would have seen: a freeze and a recovery per 50 frames, the recovery a delay sample × 100
  const recoveries = samples.filter((_, i) => i % 50 === 49).map((ns) => ns * 100);
  const rh = new DelayHistogram();
  for (const ns of recoveries) rh.recordNs(ns);
  rec.recoveryHist = rh.encode();
  rec.render = {
    ...rec.render,
    finder: "frame-id",
    framesShown: samples.length - recoveries.length * 5,
    framesNotDecodable: recoveries.length * 5,
    freezes: recoveries.length,
    frozenMs: recoveries.reduce((a, ns) => a + ns / 1e6, 0),
    longestFreezeMs: recoveries.reduce((a, ns) => Math.max(a, ns / 1e6), 0),
    measuredMs: samples.length * 50,
    endGapMs: 50,
    recoveries: recoveries.length,
  };
  return rec;
}

function syntheticTick(second: number, viewers: number, fps: number, r: () => number): ShardTick {
  const n = Math.min(5000, viewers * fps);
  const samples = Array.from({ length: n }, () => delayNs(r));
  return {
    ...emptyTick(0, second, {
      cpuSeconds: 0.4,
      eventLoopUtilisation: 0.4,
      eventLoopDelayMs: { p50: 1, p99: 3, max: 9 },
      receiveLagMs: { p50: 0.2, p99: 2, max: 6 },
    }),
    packets: viewers * fps * 3,
    bytes: viewers * fps * 3 * 1100,
    started: second === 0 ? viewers : 0,
    joined: second === 0 ? viewers : 0,
    active: viewers,
    delaySamples: samples,
    stampSamples: samples,
    transitSamples: samples,
  };
}

function syntheticProfile(shard: number, viewers: number): ShardProfile {
  return {
    shard,
    thread: "worker",
    viewers,
    packets: 1000,
    cpuSeconds: 5,
    eventLoopUtilisation: 0.4,
    eventLoopDelayMs: { p50: 1, p99: 3, max: 9 },
    receiveLagHist: new DelayHistogram().encode(),
    stamps: { source: "kernel", kernelStamped: 1000, threadStamped: 0 },
    repairedFrames: 0,
    receivePath: "arena",
    intakeDropped: 0,
  };
}

const FIGURES: AgentFigures = {
  cpuSeconds: 10,
  ceiling: { nearCeiling: false, evidence: [] },
  clock: { method: "exchange", offsetMs: 0.1, uncertaintyMs: 0.3, stepDetected: false },
};

/** One simulated agent: its frames, encoded ahead, and every delay sample its records hold. */
export interface SimAgent {
  link: AgentLink;
  ticks: Buffer[];
  finals: Buffer[];
  samples: number[];
  /** the records its frames carry */
  records: ViewerRecord[];
  /** feeds frames to the engine through a real FrameReader */
  deliver(frames: Buffer[]): void;
}

export function simAgents(o: SimOptions, ids: number[][]): SimAgent[] {
  const r = mulberry32(o.seed ?? 1);
  return ids.map((mine, index) => {
    const link: AgentLink = {
      index,
      name: `sim-${index}`,
      workers: 4,
      conn: {
        send: (m: object) => reply(m as Message),
        limitFrames: () => {},
        close: () => {},
        closed: false,
      },
      lost: null,
      finished: false,
      onMessage: () => {},
      onClose: () => {},
    };
    const reader = new FrameReader(
      (m) => link.onMessage(m),
      (why) => {
        throw new Error(why);
      },
    );
    const reply = (m: Message) => {
      if (m.type === "prepare") queueMicrotask(() => link.onMessage({ type: "ready" }));
    };
    const samples: number[] = [];
    const records = mine.map((id) => {
      const s = Array.from({ length: o.seconds * o.fps }, () => delayNs(r));
      for (const v of s) samples.push(v);
      return syntheticRecord(id, s);
    });
    const ticks = Array.from({ length: o.seconds }, (_, sec) =>
      encodeFrame({ type: "tick", tick: syntheticTick(sec, mine.length, o.fps, r) }),
    );
    const finals: Buffer[] = [];
    for (let i = 0; i < records.length; i += 50) {
      finals.push(encodeFrame({ type: "records", records: records.slice(i, i + 50) }));
    }
    const profiles = Array.from({ length: 4 }, (_, k) => syntheticProfile(k, Math.ceil(mine.length / 4)));
    finals.push(encodeFrame({ type: "done", profiles, figures: FIGURES }));
    return {
      link,
      ticks,
      finals,
      samples,
      records,
      deliver: (frames) => {
        for (const f of frames) reader.push(f);
      },
    };
  });
}

/** Viewer ids dealt round-robin over the agents, as shardTasks deals them. */
export function dealIds(agents: number, viewers: number): number[][] {
  const out: number[][] = Array.from({ length: agents }, () => []);
  for (let id = 0; id < viewers; id++) out[id % agents]?.push(id);
  return out;
}

/** The engine over the simulated agents, and one minimal task per agent. */
export function simEngine(agents: SimAgent[], viewers: number): { engine: AgentsEngine; tasks: ShardTask[] } {
  const engine = agentsEngine({
    links: agents.map((a) => a.link),
    scenario: { whep: "http://127.0.0.1/s/whep", viewers, rampSeconds: 1, holdSeconds: 1 },
    anchor: takeWallAnchor(),
    log: memoryLogger(),
    hubRejected: () => 0,
  });
  const t0 = monoNs();
  const byAgent = dealIds(agents.length, viewers);
  const tasks = byAgent.map(
    (ids, shard) =>
      ({
        shard,
        viewers: ids.map((id) => ({ id, startMonoNs: t0 + id * 1e6 })),
        t0MonoNs: t0,
        deadlineMonoNs: t0 + 60e9,
      }) as unknown as ShardTask,
  );
  return { engine, tasks };
}
