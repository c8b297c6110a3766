// What every viewer of a shard shares, and the empty record a viewer starts from.
import type { ClipTable, Hasher } from "../core/fingerprint.ts";
import type { SendLog } from "../core/sendlog.ts";
import { emptyStampCounters } from "../core/stamp-delay.ts";
import type { EncodedHistogram, ViewerRecord } from "../core/types.ts";
import type { WallAnchor } from "../net/clock.ts";
import type { IceOptions } from "../net/rtc.ts";
import type { ReceivePath } from "./receive-path.ts";

export interface ShardContext {
  whep: string;
  bearer: string | undefined;
  ice: IceOptions;
  joinTimeoutNs: number;
  stallNs: number;
  excludeFirstNs: number;
  anchor: WallAnchor;
  hasher: Hasher | null;
  table: ClipTable | null;
  sendLog: SendLog | null;
  /** the publisher's wall clock minus the monotonic clock at [0], for the stamp source; null: this process's own wall clock */
  stampClock: Float64Array | null;
  /** see ShardTask.matchDelayNs */
  matchDelayNs: number;
  /** aborted at the viewers' deadline or on interrupt: every viewer stops at that instant */
  stop: AbortSignal;
  /** shard-wide packet and payload-byte counters (per-second deltas) */
  counters: { packets: number; bytes: number };
  /** how inbound media reaches the pipeline (receive-path.ts) */
  receivePath: ReceivePath;
}

/** Live counters a viewer reports as it goes (per-second deltas and /metrics). */
export interface ViewerLive {
  started(): void;
  joined(): void;
  failed(): void;
  dropped(): void;
  left(): void;
  delaySample?: (delayNs: number, keyframe: boolean) => void;
  stampSample?: (delayNs: number) => void;
  transitSample?: (transitNs: number) => void;
}

const EMPTY_HIST: EncodedHistogram = { hdr: "", n: 0, sumNs: 0, minNs: 0, maxNs: 0 };

export function emptyRecord(id: number, hasSendLog: boolean): ViewerRecord {
  return {
    id,
    joined: false,
    rtp: {
      received: 0,
      expected: 0,
      lost: 0,
      duplicates: 0,
      tooLate: 0,
      lossPercent: 0,
      jitterMs: 0,
      receivingSeconds: 0,
      stalls: 0,
      stalledMs: 0,
      longestGapMs: 0,
      keyframes: 0,
      keyframeIntervalMinS: 0,
      keyframeIntervalMeanS: 0,
      keyframeIntervalMaxS: 0,
    },
    nacksSent: 0,
    oneWayDelay: {
      frameEnd: "",
      completeFrames: 0,
      incompleteFrames: 0,
      samples: 0,
      invalid: 0,
      unmatchedFrames: 0,
      excludedFrames: 0,
      duplicateFrames: 0,
      lateCompletedFrames: 0,
      keyframeSamples: 0,
      deltaFrameSamples: 0,
    },
    oneWayDelayBlocker: hasSendLog ? { kind: "no_track" } : { kind: "no_send_log" },
    delayHist: EMPTY_HIST,
    delayKeyHist: EMPTY_HIST,
    delayDeltaHist: EMPTY_HIST,
    packetTransit: { negotiated: false, stamped: 0, invalid: 0 },
    transitHist: EMPTY_HIST,
    stampDelay: emptyStampCounters(),
    stampHist: EMPTY_HIST,
    stampKeyHist: EMPTY_HIST,
    stampDeltaHist: EMPTY_HIST,
  };
}
