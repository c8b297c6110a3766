// What the client itself adds, for the report and the ceiling rule: each thread's load (the
// receive lag beside the event-loop figures), the viewer threads' receive lag pooled by an exact
// merge, the publisher's send lag, and the one-way delay p99 the receive lag is weighed against.
import type { ThreadLoad } from "../../core/report/ceiling.ts";
import type { DecodedViewer, ViewerInput } from "../../core/report/input.ts";
import type { EventLoopDelayMs } from "../../core/report/types.ts";
import type { StampSourceSeen } from "../../core/scenario/defaults.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";
import type { ShardProfile, StampSources } from "../../workers/protocol.ts";
import { threadLoad } from "../observe/thread-load.ts";
import type { PublisherResult } from "../publisher/publisher.ts";

/** A thread's stamp source, and for a mixed thread its thread-stamped datagrams' share and lag. */
function stampLoad(s: StampSources): Pick<ThreadLoad, "stampSource" | "threadStamped"> {
  if (s.source !== "mixed") return { stampSource: s.source };
  const share = s.threadStamped / (s.kernelStamped + s.threadStamped);
  return {
    stampSource: s.source,
    threadStamped: {
      share,
      ...(s.threadLagMs !== undefined ? { receiveLagP99Ms: s.threadLagMs.p99 } : {}),
    },
  };
}

/** A shard's thread over the whole run: its figures, stamp source, drops and NACKs. */
function shardLoad(name: string, p: ShardProfile, base: ThreadFigures = p): ThreadLoad {
  const lag = p.receiveLagMs;
  return {
    ...threadLoad(
      name,
      lag !== undefined
        ? {
            ...base,
            receiveLagMs: lag,
            ...(p.processingWaitMs !== undefined ? { processingWaitMs: p.processingWaitMs } : {}),
          }
        : base,
    ),
    ...(lag !== undefined && p.stamps !== undefined ? stampLoad(p.stamps) : {}),
    ...(p.intakeDropped > 0 ? { intakeDropped: p.intakeDropped } : {}),
    ...((p.repairedFrames ?? 0) > 0 ? { repairedFrames: p.repairedFrames } : {}),
    ...(p.socketDrops !== undefined
      ? { socketDrops: p.socketDrops }
      : p.socketDropsReason !== undefined
        ? { socketDrops: null }
        : {}),
  };
}

/**
 * The threads the ceiling rule looks at: the main thread (with the publisher's send lag when it
 * published), then every worker that ran a shard.
 */
export function threadLoads(
  main: ThreadFigures,
  profiles: readonly ShardProfile[],
  sendLagP99Ms?: number,
): ThreadLoad[] {
  // with --workers 0 the viewers' stamps and lag are the main thread's
  const inMain = profiles.find((p) => p.thread === "main");
  const first = inMain !== undefined ? shardLoad("main", inMain, main) : threadLoad("main", main);
  if (sendLagP99Ms !== undefined) first.sendLagP99Ms = sendLagP99Ms;
  return [
    first,
    ...profiles.filter((p) => p.thread === "worker").map((p) => shardLoad(`worker ${p.shard}`, p)),
  ];
}

/** client.receiveLagMs (the viewer threads' histograms merged) and client.publisherSendLagMs. */
export function clientLag(
  profiles: readonly ShardProfile[],
  pub: PublisherResult | null,
): {
  receiveLagMs?: EventLoopDelayMs;
  publisherSendLagMs?: EventLoopDelayMs;
  publisherCaptureLeadMs?: EventLoopDelayMs;
} {
  const pooled = DelayHistogram.union(...profiles.map((p) => DelayHistogram.decode(p.receiveLagHist)));
  const receiveLagMs = pooled.p50p99MaxMs();
  const send =
    pub?.sendLagHist !== undefined ? DelayHistogram.decode(pub.sendLagHist).p50p99MaxMs() : undefined;
  const lead =
    pub?.captureLeadHist !== undefined ? DelayHistogram.decode(pub.captureLeadHist).p50p99MaxMs() : undefined;
  return {
    ...(receiveLagMs !== undefined ? { receiveLagMs } : {}),
    ...(send !== undefined ? { publisherSendLagMs: send } : {}),
    ...(lead !== undefined ? { publisherCaptureLeadMs: lead } : {}),
  };
}

/**
 * The one-way delay p99 the receive lag is weighed against: every viewer's frame delays merged
 * (the fingerprint source, else the stamp source), in ms; null when there are none.
 */
export function pooledDelayP99Ms(viewers: readonly ViewerInput[]): number | null {
  const pick = (source: (v: DecodedViewer) => DelayHistogram): number | null => {
    const h = DelayHistogram.union(...viewers.map((v) => source(v.record)));
    return h.count > 0 ? h.quantileNs(99) / 1e6 : null;
  };
  return pick((v) => v.delayHist) ?? pick((v) => v.stampHist);
}

/**
 * client.stampSource over every viewer thread that stamped a datagram ("mixed" when they differ
 * or one thread mixed), and client.stampReasons naming each thread that stamped any itself.
 */
export function stampSources(profiles: readonly ShardProfile[]): {
  stampSource?: StampSourceSeen;
  stampReasons?: string[];
} {
  const stamped = profiles.filter(
    (p) => p.stamps !== undefined && p.stamps.kernelStamped + p.stamps.threadStamped > 0,
  );
  if (stamped.length === 0) return {};
  const kinds = new Set(stamped.map((p) => p.stamps.source));
  const stampSource = kinds.size === 1 ? [...kinds][0]! : "mixed";
  const reasons = stamped
    .filter((p) => p.stamps.source !== "kernel")
    .map((p) => {
      const name = p.thread === "main" ? "main" : `worker ${p.shard}`;
      return `${name}: ${p.stamps.source} (${p.stamps.threadStamped} of ${p.stamps.kernelStamped + p.stamps.threadStamped} datagrams by the thread: ${p.stamps.threadReason ?? "no reason recorded"})`;
    });
  return { stampSource, ...(reasons.length > 0 ? { stampReasons: reasons } : {}) };
}
