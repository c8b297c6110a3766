// One viewer's audio track (docs/definitions.md#audio-track), pure and synchronous: RTP
// statistics at 48 kHz (loss, RFC 3550 jitter), the first audio packet, and — when the run
// publishes — each packet fingerprinted whole (one packet is one unit: no reassembly), looked up
// in the audio clip's table and matched to its send in the audio send log, as a video frame is
// (docs/definitions.md#matcher, 960 ticks a packet): the packet's one-way delay.
import { OPUS_CLOCK_RATE } from "../clip/ogg-opus.ts";
import { ClipError } from "../errors.ts";
import { RtpStats } from "../rtp/stats.ts";
import { DelayHistogram } from "../stats/summaries.ts";
import type { AudioRecord } from "../types.ts";
import type { AvOffset } from "./av-offset.ts";
import type { Hasher } from "./fingerprint.ts";
import { Matcher } from "./matcher.ts";
import type { SendLog } from "./sendlog.ts";

const DUPLICATE = -1;
const UNKNOWN = -2;

/**
 * Fingerprint of every audio clip packet → its index; one held by two packets is a duplicate (never
 * sampled).
 */
export class AudioTable {
  readonly loopPackets: number;
  readonly ticks: number;
  readonly duplicatePackets: number;
  private readonly index = new Map<bigint, number>();

  constructor(fingerprints: readonly bigint[], ticks: number) {
    if (fingerprints.length === 0) throw new ClipError("audio: the clip has no packets");
    fingerprints.forEach((fp, i) => {
      this.index.set(fp, this.index.has(fp) ? DUPLICATE : i);
    });
    let d = 0;
    for (const fp of fingerprints) if (this.index.get(fp) === DUPLICATE) d++;
    this.loopPackets = fingerprints.length;
    this.ticks = ticks;
    this.duplicatePackets = d;
  }

  /** The packet's clip index; −1 for a duplicate fingerprint, −2 for one not in the clip. */
  lookup(fp: bigint): number {
    return this.index.get(fp) ?? UNKNOWN;
  }
}

export interface AudioPipelineOptions {
  /** monotonic instant of the WHEP POST (ns) */
  postNs: number;
  /** samples are taken only from packets that arrived this long after the viewer's first audio packet */
  excludeFirstNs: number;
  stallNs: number;
  /** the fingerprint source's inputs; all null: packets and loss only (a view-only run) */
  hasher: Hasher | null;
  table: AudioTable | null;
  sendLog: SendLog | null;
  /** where the delay samples also go, beside the video track's (the A/V offset) */
  offset: AvOffset | null;
}

const notKey = (): boolean => false;

export class AudioPipeline {
  /** POST → first audio packet, ns; −1 before */
  firstAudioNs = -1;
  private readonly postNs: number;
  private readonly excludeFirstNs: number;
  private sampleFromNs = 0;
  private packets = 0;
  private readonly rtp: RtpStats;
  private readonly hasher: Hasher | null;
  private readonly table: AudioTable | null;
  private readonly matcher: Matcher | null;
  private readonly offset: AvOffset | null;
  readonly hist = new DelayHistogram();
  private samples = 0;
  private invalid = 0;
  private unmatched = 0;
  private duplicates = 0;
  private excluded = 0;

  constructor(opts: AudioPipelineOptions) {
    this.postNs = opts.postNs;
    this.excludeFirstNs = opts.excludeFirstNs;
    this.rtp = new RtpStats({ clockRate: OPUS_CLOCK_RATE, stallNs: opts.stallNs, keyframeStart: notKey });
    const matching = opts.hasher !== null && opts.table !== null && opts.sendLog !== null;
    this.hasher = matching ? opts.hasher : null;
    this.table = matching ? opts.table : null;
    this.matcher =
      matching && opts.sendLog !== null && opts.table !== null
        ? new Matcher(opts.sendLog, opts.table.loopPackets, opts.table.ticks)
        : null;
    this.offset = opts.offset;
  }

  /** One audio packet, in read order, with its arrival instant (monotonic ns). No allocation but the hash. */
  onPacket(seq: number, ts: number, marker: boolean, payload: Uint8Array, arrivalNs: number): void {
    if (this.packets === 0) {
      this.firstAudioNs = arrivalNs - this.postNs;
      this.sampleFromNs = arrivalNs + this.excludeFirstNs;
    }
    this.packets++;
    this.rtp.push(seq, ts, marker, payload, arrivalNs - this.postNs);
    const m = this.matcher;
    if (m === null || this.hasher === null || this.table === null) return;
    const i = this.table.lookup(this.hasher.packetFingerprint(payload));
    // matched even inside the excluded window, so the matcher's anchor moves as without it
    const sampled = i >= 0 && m.match(i, ts, arrivalNs) === "sampled";
    if (arrivalNs < this.sampleFromNs) this.excluded++;
    else if (i === DUPLICATE) this.duplicates++;
    else if (i < 0) this.unmatched++;
    else if (!sampled) this.invalid++;
    else {
      this.samples++;
      this.hist.recordNs(m.delayNs);
      this.offset?.audioSample(arrivalNs, m.delayNs);
    }
  }

  /** The track's figures at the end; `offsetsNs` is the viewer's A/V offset per second. */
  finish(offsetsNs: number[]): AudioRecord {
    return {
      rtp: this.rtp.report(),
      ...(this.firstAudioNs >= 0 ? { firstAudioNs: this.firstAudioNs } : {}),
      matched: this.matcher !== null,
      samples: this.samples,
      invalid: this.invalid,
      unmatchedPackets: this.unmatched,
      duplicatePackets: this.duplicates,
      excludedPackets: this.excluded,
      delayHist: this.hist.encode(),
      avOffsetNs: offsetsNs,
    };
  }
}
