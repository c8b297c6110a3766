// The report's `client` block (docs/definitions.md#client): this process, its threads, the
// receive and send lag it adds, and its own ceiling. Keys in serialisation order, as in types.ts.

import {
  RECEIVE_PATHS,
  type ReceivePath,
  STAMP_SOURCES,
  type StampSourceSeen,
} from "../scenario/defaults.ts";

/**
 * The publisher's send-instant source (docs/definitions.md#send-instant): "mixed" when frames had
 * both.
 */
export type SendStampSource = "kernel" | "handover" | "mixed";

/** Event-loop delay in ms (perf_hooks histogram read at the end of the run). */
export interface EventLoopDelayMs {
  p50: number;
  p99: number;
  max: number;
}

/** `client.resources` with Node figures (replaces the reference's peakGoroutines). */
export interface ClientResources {
  cpuSeconds?: number;
  cpuUtilisationPercent?: number;
  cpuReason?: string;
  peakHeapBytes: number;
  peakRssBytes: number;
  /** worker threads that ran viewers; 0 = viewers ran in the main thread */
  workers: number;
  /** the main thread alone (publisher, send log, merge; the viewers too with 0 workers) */
  mainThread?: ThreadReport;
  /** kernel UDP receive drops on this host during the run (Linux); absent where unreadable */
  udpReceiveErrors?: { rcvbufErrors: number; inErrors: number };
}

/** One thread's own load over the run. */
export interface ThreadReport {
  cpuSeconds: number;
  eventLoopUtilisation: number;
  eventLoopDelayMs: EventLoopDelayMs;
}

/**
 * What a shard's thread says of itself that `client.workers[]` carries as it is: declared once
 * here. The worker protocol's ShardProfile extends it, WorkerReport adds what the main thread
 * derives, and main/run/report-input.ts copies every key THREAD_CARRIED (below) names.
 */
export interface ThreadCarried extends ThreadReport {
  shard: number;
  /** "main" with --workers 0, else "worker" */
  thread: "main" | "worker";
  viewers: number;
  packets: number;
  /**
   * how long this thread's media datagrams may have waited before their stamp
   * (docs/definitions.md#receive-lag); absent when it stamped none
   */
  receiveLagMs?: EventLoopDelayMs;
  /**
   * arrival stamp to the start of processing, the receive lag plus the intake's queue
   * (docs/definitions.md#receive-lag)
   */
  processingWaitMs?: EventLoopDelayMs;
  /**
   * the receive path that read this thread's media: werift, lean, arena, or mixed where the arena
   * could not run for all (docs/definitions.md#receive-paths)
   */
  receivePath?: ReceivePath | "mixed";
  /** why the arena path fell back to the lean one on this thread */
  receivePathReason?: string;
  /**
   * who sent the viewers' RTCP: native SRTCP, werift's sendRtcp, or both
   * (docs/definitions.md#receive-paths); absent where no viewer reached SRTP
   */
  rtcpSend?: "native" | "werift" | "mixed";
  /** why werift's sendRtcp sent some or all of it on our receive path */
  rtcpSendReason?: string;
  /** arena path: whether the thread's viewers shared one socket (docs/definitions.md#receive-paths) */
  viewerSockets?: "shared" | "own" | "mixed";
  /** why some or all of them kept sockets of their own */
  viewerSocketsReason?: string;
  /** datagrams the shared socket dropped, from a source no viewer had; absent when none */
  unroutedDatagrams?: number;
  /**
   * datagrams the kernel dropped on this thread's own sockets (docs/definitions.md#udp-drops): loss
   * that is ours; absent, with socketDropsReason, where they could not be read
   */
  socketDrops?: number;
  socketDropsReason?: string;
}

/** `client.workers[]`: one entry per shard, in shard order: the thread's own, and what is derived. */
export interface WorkerReport extends ThreadCarried {
  /** µs of this thread's CPU per received packet; absent when no packet arrived */
  usPerPacket?: number;
  /** datagrams this thread's intake dropped with its queue full; absent when none */
  intakeDropped?: number;
  /** which clock stamped this thread's media datagrams (docs/definitions.md#arrival-stamps) */
  stampSource?: StampSourceSeen;
  /** media datagrams stamped by the kernel and by the thread */
  kernelStamped?: number;
  threadStamped?: number;
  /** why the thread stamped datagrams itself; absent when the kernel stamped all */
  stampReason?: string;
  /** a mixed thread's receive lag of its thread-stamped datagrams alone (the ceiling's rule) */
  threadStampedLagMs?: EventLoopDelayMs;
}

/**
 * A key's JSON shape: a count (an integer ≥ 0), any finite number, a delay block, a text, or one of
 * the listed words.
 */
export type KeyShape = "count" | "number" | "delay" | "text" | readonly string[];

/**
 * One `client.workers[]` key: its shape, whether the thread carries it (a ThreadCarried key) and
 * whether it may be absent; the compiler holds both flags to the interfaces.
 */
export interface WorkerKey<K extends keyof WorkerReport> {
  shape: KeyShape;
  carried: K extends keyof ThreadCarried ? true : false;
  optional: object extends Pick<WorkerReport, K> ? true : false;
}

/**
 * Every key of WorkerReport, in the report's key order (core/report/client-block.ts writes them in
 * this order; an agent's profile check, main/agents/shapes.ts, reads the carried ones' shapes).
 */
export const WORKER_KEYS: { readonly [K in keyof WorkerReport]-?: WorkerKey<K> } = {
  shard: { shape: "count", carried: true, optional: false },
  thread: { shape: ["main", "worker"], carried: true, optional: false },
  viewers: { shape: "count", carried: true, optional: false },
  packets: { shape: "count", carried: true, optional: false },
  cpuSeconds: { shape: "number", carried: true, optional: false },
  usPerPacket: { shape: "number", carried: false, optional: true },
  eventLoopUtilisation: { shape: "number", carried: true, optional: false },
  eventLoopDelayMs: { shape: "delay", carried: true, optional: false },
  receiveLagMs: { shape: "delay", carried: true, optional: true },
  intakeDropped: { shape: "count", carried: false, optional: true },
  processingWaitMs: { shape: "delay", carried: true, optional: true },
  receivePath: { shape: [...RECEIVE_PATHS, "mixed"], carried: true, optional: true },
  receivePathReason: { shape: "text", carried: true, optional: true },
  rtcpSend: { shape: ["native", "werift", "mixed"], carried: true, optional: true },
  rtcpSendReason: { shape: "text", carried: true, optional: true },
  viewerSockets: { shape: ["shared", "own", "mixed"], carried: true, optional: true },
  viewerSocketsReason: { shape: "text", carried: true, optional: true },
  unroutedDatagrams: { shape: "count", carried: true, optional: true },
  socketDrops: { shape: "count", carried: true, optional: true },
  socketDropsReason: { shape: "text", carried: true, optional: true },
  stampSource: { shape: [...STAMP_SOURCES, "mixed"], carried: false, optional: true },
  kernelStamped: { shape: "count", carried: false, optional: true },
  threadStamped: { shape: "count", carried: false, optional: true },
  stampReason: { shape: "text", carried: false, optional: true },
  threadStampedLagMs: { shape: "delay", carried: false, optional: true },
};

/** The carried keys of WORKER_KEYS, in its order: what main/run/report-input.ts copies as it is. */
export const THREAD_CARRIED = Object.fromEntries(
  Object.entries(WORKER_KEYS).filter(([, k]) => k.carried),
) as { readonly [K in keyof ThreadCarried]-?: WorkerKey<K> };

/**
 * `client.udpDrops` (docs/definitions.md#udp-drops): datagrams the kernel dropped on receive, by
 * whose sockets they were.
 */
export interface UdpDropsReport {
  /** on the viewer threads' own sockets: loss that is ours (the ceiling rule judges this) */
  own?: number;
  /** why `own` could not be read (then the ceiling rule judges the host's counter) */
  ownReason?: string;
  /** on the in-process built-in relay's sockets: the server's (the no-scenario `run`) */
  relay?: number;
  relayReason?: string;
  /** the host's counters (/proc/net/snmp), every socket on the host: context */
  host?: { rcvbufErrors: number; inErrors: number };
}

/** `client.ceiling`: whether the client was near its own ceiling, and why. */
export interface CeilingReport {
  nearCeiling: boolean;
  thresholds: {
    eventLoopUtilisation: number;
    eventLoopDelayP99Ms: number;
    /**
     * the receive lag p99 at which a viewer thread counts as near: the larger of the floor and the
     * share of the delay p99
     */
    receiveLagP99Ms?: number;
    keepUpWaitP50Ms?: number;
    publisherSendLagP99Ms?: number;
  };
  evidence?: string[];
}

/** `client.hosts[]` (docs/definitions.md#many-hosts): one agent of a many-host run. */
export interface HostReport {
  /** the agent's --name (its hostname by default) */
  name: string;
  /** viewers the coordinator gave it */
  viewers: number;
  /** its worker threads */
  workers: number;
  /** why the coordinator lost it mid-run; absent when it finished (its viewers are then agent_lost) */
  lost?: string;
  /** the agent process's CPU over the run; absent when it was lost */
  cpuSeconds?: number;
  /** its own ceiling verdict (client.ceiling on that host); absent when it was lost */
  ceiling?: { nearCeiling: boolean; evidence?: string[] };
  /** its clock against the coordinator's (the clock exchange) */
  clock: { method: "exchange" | "none"; offsetMs?: number; uncertaintyMs?: number; reason?: string };
}

/**
 * docs/definitions.md#client `client`. The key `go` is kept for schema compatibility; it carries
 * the runtime string.
 */
export interface ReportClient {
  os: string;
  arch: string;
  cpus: number;
  go: string;
  resources?: ClientResources;
  workers?: WorkerReport[];
  /**
   * the receive lag of every viewer thread's datagrams, pooled (exact merge); absent when none was
   * stamped
   */
  receiveLagMs?: EventLoopDelayMs;
  /**
   * the stamp source over every viewer thread: "mixed" when threads (or datagrams) differ
   * (docs/definitions.md#arrival-stamps)
   */
  stampSource?: StampSourceSeen;
  /** with "mixed" or "thread": which threads used the thread's stamp, and why */
  stampReasons?: string[];
  /**
   * per frame: the publisher's first packet handed to the socket − the frame's start of sending
   * (docs/definitions.md#send-lag)
   */
  publisherSendLagMs?: EventLoopDelayMs;
  /**
   * per kernel-stamped frame with abs-capture-time: its first packet's kernel transmit stamp − the
   * capture instant written in it (docs/definitions.md#send-instant)
   */
  publisherCaptureLeadMs?: EventLoopDelayMs;
  /** the publisher's send-instant source (docs/definitions.md#send-instant): "mixed" when frames had both */
  sendStampSource?: SendStampSource;
  /** frames by send-instant source, and why some had the hand-over instant */
  sendStamps?: { kernel: number; handover: number; reasons?: string[] };
  udpDrops?: UdpDropsReport;
  ceiling?: CeilingReport;
  /** a many-host run's agents, in the order they connected (docs/definitions.md#many-hosts) */
  hosts?: HostReport[];
  /** messages from agents that were malformed or oversized and closed their connection; only with hosts */
  agentMessagesRejected?: number;
}
