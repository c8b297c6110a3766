// What the client itself adds, for the report and the ceiling rule: each thread's load (the
// receive lag beside the event-loop figures), the viewer threads' receive lag pooled by an exact
// merge, the publisher's send lag, and the one-way delay p99 the receive lag is weighed against.
import type { ThreadLoad } from "../../core/report/ceiling.ts";
import type { DecodedViewer, ViewerInput } from "../../core/report/input.ts";
import type { EventLoopDelayMs } from "../../core/report/types.ts";
import { DelayHistogram } from "../../core/stats/summaries.ts";
import type { ThreadFigures } from "../../net/thread-profile.ts";
import type { ShardProfile } from "../../workers/protocol.ts";
import { decodeHistogram } from "./decode-record.ts";
import type { PublisherResult } from "./publisher.ts";

/** One thread's figures as the ceiling rule reads them (the whole run, or one second of it). */
export function threadLoad(name: string, f: ThreadFigures): ThreadLoad {
  return {
    name,
    eventLoopUtilisation: f.eventLoopUtilisation,
    eventLoopDelayP99Ms: f.eventLoopDelayMs.p99,
    ...(f.receiveLagMs !== undefined ? { receiveLagP99Ms: f.receiveLagMs.p99 } : {}),
  };
}

/** The threads the ceiling rule looks at: the main thread, then every worker that ran a shard. */
export function threadLoads(main: ThreadFigures, profiles: readonly ShardProfile[]): ThreadLoad[] {
  // with --workers 0 the viewers' receive lag is the main thread's
  const lag = profiles.find((p) => p.thread === "main")?.receiveLagMs;
  return [
    threadLoad("main", lag !== undefined ? { ...main, receiveLagMs: lag } : main),
    ...profiles.filter((p) => p.thread === "worker").map((p) => threadLoad(`worker ${p.shard}`, p)),
  ];
}

/** client.receiveLagMs (the viewer threads' histograms merged) and client.publisherSendLagMs. */
export function clientLag(
  profiles: readonly ShardProfile[],
  pub: PublisherResult | null,
): { receiveLagMs?: EventLoopDelayMs; publisherSendLagMs?: EventLoopDelayMs } {
  const pooled = DelayHistogram.union(...profiles.map((p) => decodeHistogram(p.receiveLagHist)));
  const receiveLagMs = pooled.p50p99MaxMs();
  const send = pub?.sendLagHist !== undefined ? decodeHistogram(pub.sendLagHist).p50p99MaxMs() : undefined;
  return {
    ...(receiveLagMs !== undefined ? { receiveLagMs } : {}),
    ...(send !== undefined ? { publisherSendLagMs: send } : {}),
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
