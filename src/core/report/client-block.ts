// `client`: the machine, the process's resources, one entry per shard thread, and the ceiling
// verdict (our additions beside the reference's keys; see the method lines).
import { WORKER_KEYS } from "./client-types.ts";
import { type ReportInput, type SendStamps, sendStampSource } from "./input.ts";
import type {
  CeilingReport,
  ClientResources,
  EventLoopDelayMs,
  HostReport,
  ReportClient,
  ThreadReport,
  UdpDropsReport,
  WorkerReport,
} from "./types.ts";

function delay(d: EventLoopDelayMs): EventLoopDelayMs {
  return { p50: d.p50, p99: d.p99, max: d.max };
}

function thread(t: ThreadReport): ThreadReport {
  return {
    cpuSeconds: t.cpuSeconds,
    eventLoopUtilisation: t.eventLoopUtilisation,
    eventLoopDelayMs: delay(t.eventLoopDelayMs),
  };
}

/** client.resources in key order. */
function resourcesBlock(r: ClientResources): ClientResources {
  return {
    ...(r.cpuSeconds !== undefined ? { cpuSeconds: r.cpuSeconds } : {}),
    ...(r.cpuUtilisationPercent !== undefined ? { cpuUtilisationPercent: r.cpuUtilisationPercent } : {}),
    ...(r.cpuReason !== undefined && r.cpuReason !== "" ? { cpuReason: r.cpuReason } : {}),
    peakHeapBytes: r.peakHeapBytes,
    peakRssBytes: r.peakRssBytes,
    workers: r.workers,
    ...(r.mainThread !== undefined ? { mainThread: thread(r.mainThread) } : {}),
    ...(r.udpReceiveErrors !== undefined
      ? {
          udpReceiveErrors: {
            rcvbufErrors: r.udpReceiveErrors.rcvbufErrors,
            inErrors: r.udpReceiveErrors.inErrors,
          },
        }
      : {}),
  };
}

function workerBlock(w: WorkerReport): WorkerReport {
  const out: Record<string, unknown> = {};
  for (const [k, key] of Object.entries(WORKER_KEYS)) {
    const v = w[k as keyof WorkerReport];
    if (v !== undefined) out[k] = key.shape === "delay" ? delay(v as EventLoopDelayMs) : v;
  }
  return out as unknown as WorkerReport;
}

/** client.udpDrops in key order. */
function udpDropsBlock(u: UdpDropsReport): UdpDropsReport {
  return {
    ...(u.own !== undefined ? { own: u.own } : {}),
    ...(u.ownReason !== undefined ? { ownReason: u.ownReason } : {}),
    ...(u.relay !== undefined ? { relay: u.relay } : {}),
    ...(u.relayReason !== undefined ? { relayReason: u.relayReason } : {}),
    ...(u.host !== undefined
      ? { host: { rcvbufErrors: u.host.rcvbufErrors, inErrors: u.host.inErrors } }
      : {}),
  };
}

function ceilingBlock(c: CeilingReport): CeilingReport {
  return {
    nearCeiling: c.nearCeiling,
    thresholds: {
      eventLoopUtilisation: c.thresholds.eventLoopUtilisation,
      eventLoopDelayP99Ms: c.thresholds.eventLoopDelayP99Ms,
      ...(c.thresholds.receiveLagP99Ms !== undefined
        ? { receiveLagP99Ms: c.thresholds.receiveLagP99Ms }
        : {}),
      ...(c.thresholds.keepUpWaitP50Ms !== undefined
        ? { keepUpWaitP50Ms: c.thresholds.keepUpWaitP50Ms }
        : {}),
      ...(c.thresholds.publisherSendLagP99Ms !== undefined
        ? { publisherSendLagP99Ms: c.thresholds.publisherSendLagP99Ms }
        : {}),
    },
    ...(c.evidence !== undefined && c.evidence.length > 0 ? { evidence: [...c.evidence] } : {}),
  };
}

function hostBlock(h: HostReport): HostReport {
  const c = h.clock;
  return {
    name: h.name,
    viewers: h.viewers,
    workers: h.workers,
    ...(h.lost !== undefined ? { lost: h.lost } : {}),
    ...(h.cpuSeconds !== undefined ? { cpuSeconds: h.cpuSeconds } : {}),
    ...(h.ceiling !== undefined
      ? {
          ceiling: {
            nearCeiling: h.ceiling.nearCeiling,
            ...(h.ceiling.evidence?.length ? { evidence: [...h.ceiling.evidence] } : {}),
          },
        }
      : {}),
    clock: {
      method: c.method,
      ...(c.offsetMs !== undefined ? { offsetMs: c.offsetMs } : {}),
      ...(c.uncertaintyMs !== undefined ? { uncertaintyMs: c.uncertaintyMs } : {}),
      ...(c.reason !== undefined ? { reason: c.reason } : {}),
    },
  };
}

function sendStampsBlock(s: SendStamps): Pick<ReportClient, "sendStampSource" | "sendStamps"> {
  return {
    sendStampSource: sendStampSource(s),
    sendStamps: {
      kernel: s.kernel,
      handover: s.handover,
      ...(s.reasons !== undefined && s.reasons.length > 0 ? { reasons: [...s.reasons] } : {}),
    },
  };
}

export function clientBlock(input: ReportInput): ReportClient {
  return {
    os: input.client.os,
    arch: input.client.arch,
    cpus: input.client.cpus,
    go: input.client.runtime,
    ...(input.resources !== undefined ? { resources: resourcesBlock(input.resources) } : {}),
    ...(input.workers !== undefined ? { workers: input.workers.map(workerBlock) } : {}),
    ...(input.receiveLagMs !== undefined ? { receiveLagMs: delay(input.receiveLagMs) } : {}),
    ...(input.stampSource !== undefined ? { stampSource: input.stampSource } : {}),
    ...(input.stampReasons !== undefined ? { stampReasons: [...input.stampReasons] } : {}),
    ...(input.publisherSendLagMs !== undefined
      ? { publisherSendLagMs: delay(input.publisherSendLagMs) }
      : {}),
    ...(input.publisherCaptureLeadMs !== undefined
      ? { publisherCaptureLeadMs: delay(input.publisherCaptureLeadMs) }
      : {}),
    ...(input.sendStamps !== undefined ? sendStampsBlock(input.sendStamps) : {}),
    ...(input.udpDrops !== undefined ? { udpDrops: udpDropsBlock(input.udpDrops) } : {}),
    ...(input.ceiling !== undefined ? { ceiling: ceilingBlock(input.ceiling) } : {}),
    ...(input.hosts !== undefined ? { hosts: input.hosts.map(hostBlock) } : {}),
    ...(input.hosts !== undefined ? { agentMessagesRejected: input.agentMessagesRejected ?? 0 } : {}),
  };
}

/** The reason every one-way delay block of a client-bound run is not comparable, or undefined. */
export function clientBoundReason(c: CeilingReport | undefined): string | undefined {
  if (!c?.nearCeiling) return undefined;
  return `the client was near its own ceiling (${(c.evidence ?? []).join("; ")}), so its own work may be inside the figure`;
}
