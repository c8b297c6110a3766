// The audio track in the report (docs/definitions.md#audio-track): `viewers[].audio` from each
// viewer's record and `aggregate.audio` pooled over the viewers that received audio — packets,
// loss, jitter, first audio packet, the packets' one-way delay and the A/V offset
// (docs/definitions.md#audio-video-offset). "Unavailable, because …" where a figure has no basis.
import { DelayHistogram, exactSummary } from "../stats/summaries.ts";
import type { AudioRecord, Summary } from "../types.ts";
import { jitterUnmeasuredReason } from "./reasons.ts";

/** A viewer's audio record with its histogram decoded (decode.ts). */
export type DecodedAudio = Omit<AudioRecord, "delayHist"> & { delayHist: DelayHistogram };

/** The one-way delay of the audio packets (fingerprint source, one packet a unit). */
export interface AudioDelayBlock {
  available: boolean;
  reason?: string;
  samples: number;
  invalid: number;
  unmatchedPackets: number;
  duplicatePackets: number;
  excludedPackets: number;
  ms?: Summary;
}

/** Audio delay − video delay per second with samples of both tracks, summarised in ms. */
export interface AvOffsetBlock {
  available: boolean;
  reason?: string;
  seconds: number;
  ms?: Summary;
}

export interface ViewerAudioBlock {
  available: boolean;
  reason?: string;
  packetsReceived: number;
  packetsExpected: number;
  packetsLost: number;
  /** null where no packet arrived (the block's reason says why) */
  lossPercent: number | null;
  /** null before two packets arrived, with jitterMsReason */
  jitterMs: number | null;
  jitterMsReason?: string;
  firstAudioMs?: number;
  oneWayDelay: AudioDelayBlock;
  avOffset: AvOffsetBlock;
}

export interface PooledAudioBlock {
  available: boolean;
  reason?: string;
  /** viewers that received at least one audio packet */
  viewers: number;
  packetsReceived: number;
  packetsLost: number;
  /** null where no viewer received an audio packet (the block's reason says why) */
  lossPercentTotal: number | null;
  /** over those of them that received two packets, one value each */
  jitterMs?: Summary;
  firstAudioMs?: Summary;
  oneWayDelay?: AudioDelayBlock;
  avOffset?: AvOffsetBlock;
}

export const NOT_ASKED = "the scenario did not ask for audio (audio: true)";
const NO_TRACK = "the viewer received no audio track";
const NO_PACKET = "no audio packet arrived";
const NO_LOG = "no audio send log: this process did not publish the audio track";
const NO_MATCH = "no audio packet was matched to its send";
const NO_SECOND = "no second held delay samples of both tracks";

function delayBlock(counts: Omit<AudioDelayBlock, "available" | "ms">, h: DelayHistogram, why: string) {
  const ok = why === "" && h.count > 0;
  return {
    available: ok,
    ...(ok ? {} : { reason: why === "" ? NO_MATCH : why }),
    ...counts,
    ...(ok ? { ms: h.summaryMs() } : {}),
  };
}

function offsetBlock(offsetsNs: readonly number[]): AvOffsetBlock {
  if (offsetsNs.length === 0) return { available: false, reason: NO_SECOND, seconds: 0 };
  return { available: true, seconds: offsetsNs.length, ms: exactSummary(offsetsNs.map((ns) => ns / 1e6)) };
}

function counts(a: DecodedAudio) {
  return {
    samples: a.samples,
    invalid: a.invalid,
    unmatchedPackets: a.unmatchedPackets,
    duplicatePackets: a.duplicatePackets,
    excludedPackets: a.excludedPackets,
  };
}

/** `viewers[].audio` of a run that asked for audio (docs/definitions.md#audio-track). */
export function viewerAudio(a: DecodedAudio | undefined): ViewerAudioBlock {
  const received = a?.rtp.received ?? 0;
  const why = a === undefined ? NO_TRACK : received === 0 ? NO_PACKET : "";
  const zero = { samples: 0, invalid: 0, unmatchedPackets: 0, duplicatePackets: 0, excludedPackets: 0 };
  const jitter = received > 1 ? (a?.rtp.jitterMs ?? null) : null;
  return {
    available: why === "",
    ...(why !== "" ? { reason: why } : {}),
    packetsReceived: received,
    packetsExpected: a?.rtp.expected ?? 0,
    packetsLost: a?.rtp.lost ?? 0,
    lossPercent: a !== undefined && a.rtp.expected > 0 ? a.rtp.lossPercent : null,
    jitterMs: jitter,
    ...(jitter === null ? { jitterMsReason: jitterUnmeasuredReason(received) } : {}),
    ...(a?.firstAudioNs !== undefined ? { firstAudioMs: a.firstAudioNs / 1e6 } : {}),
    oneWayDelay:
      a === undefined
        ? delayBlock(zero, new DelayHistogram(), why)
        : delayBlock(counts(a), a.delayHist, why !== "" ? why : a.matched ? "" : NO_LOG),
    avOffset: why !== "" ? { available: false, reason: why, seconds: 0 } : offsetBlock(a?.avOffsetNs ?? []),
  };
}

/**
 * `aggregate.audio`: every viewer's audio pooled (histograms merged exactly, offsets of every
 * viewer-second).
 */
export function pooledAudio(
  asked: boolean,
  records: readonly (DecodedAudio | undefined)[],
): PooledAudioBlock {
  const base = { viewers: 0, packetsReceived: 0, packetsLost: 0, lossPercentTotal: null };
  if (!asked) return { available: false, reason: NOT_ASKED, ...base };
  const heard = records.filter((a): a is DecodedAudio => a !== undefined && a.rtp.received > 0);
  if (heard.length === 0) return { available: false, reason: NO_PACKET, ...base };
  const h = new DelayHistogram();
  const sum = { samples: 0, invalid: 0, unmatchedPackets: 0, duplicatePackets: 0, excludedPackets: 0 };
  let expected = 0;
  for (const a of heard) {
    h.add(a.delayHist);
    const c = counts(a);
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += c[k];
    expected += a.rtp.expected;
  }
  const received = heard.reduce((n, a) => n + a.rtp.received, 0);
  const lost = heard.reduce((n, a) => n + a.rtp.lost, 0);
  const firsts = heard.flatMap((a) => (a.firstAudioNs !== undefined ? [a.firstAudioNs / 1e6] : []));
  return {
    available: true,
    viewers: heard.length,
    packetsReceived: received,
    packetsLost: lost,
    // every viewer heard received a packet, so expected ≥ 1
    lossPercentTotal: (lost / expected) * 100,
    jitterMs: exactSummary(
      heard.flatMap((a) => (a.rtp.received > 1 && a.rtp.jitterMs !== null ? [a.rtp.jitterMs] : [])),
    ),
    firstAudioMs: exactSummary(firsts),
    oneWayDelay: delayBlock(sum, h, heard.some((a) => a.matched) ? "" : NO_LOG),
    avOffset: offsetBlock(heard.flatMap((a) => a.avOffsetNs)),
  };
}
