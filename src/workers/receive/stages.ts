// The shape of a viewer's receive chain, in the manner of pion's interceptor registry: the chain
// is a list of stage factories (ChainPlan) folded in one loop (foldChain) when the viewer's SRTP
// starts, and every stage has the same two calls, `receive` and `close`. A datagram stage takes
// the datagram (its first `length` bytes; on the arena path a view into the reader's arena, valid
// during the call only) and its arrival instant (monotonic ns); the SRTP and RTP stage (receiver.ts
// where we unprotect, on the lean and arena paths; werift-stage.ts where werift does) reads the
// packet's fields once into the chain's ReceivedPacket and hands it to the last stage, the
// pipeline's feed (PipelineStage), which stops at the viewer's end. chain.ts writes the lists.
import { monoNs } from "../../core/clock/clock.ts";
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import type { RemoteSrtpKeys } from "../../net/werift/srtp-start.ts";

/** A stage of the chain before the packet is read: a datagram of `length` bytes at the start of `data`. */
export interface ReceiveStage {
  receive(data: Buffer, length: number, arrivalNs: number): void;
  /** the viewer's chain closes: nothing received after it goes on */
  close(): void;
}

/** What a source (the intake, the arena reader) hands a datagram to: the head of a viewer's chain. */
export type ChainHead = Pick<ReceiveStage, "receive">;

/** A stage after the packet is read: its fields in the chain's record, valid during the call only. */
export interface PacketStage {
  receive(packet: ReceivedPacket): void;
  close(): void;
}

const NO_BYTES = new Uint8Array(0);

/**
 * One received video packet, as the pipeline takes it; one record per chain, rewritten by its
 * SRTP and RTP stage for each packet (so nothing is allocated per packet).
 */
export class ReceivedPacket {
  /** the media packet's sequence number (a retransmission's original) */
  seq = 0;
  /** RTP timestamp */
  ts = 0;
  marker = false;
  payload: Uint8Array = NO_BYTES;
  /** monotonic ns */
  arrivalNs = 0;
  /** abs-capture-time as Unix ns, −1 when the packet carries none */
  captureWallNs = -1;

  /** This record, rewritten for the next packet. */
  set(seq: number, ts: number, marker: boolean, payload: Uint8Array, atNs: number, wallNs: number): this {
    this.seq = seq;
    this.ts = ts;
    this.marker = marker;
    this.payload = payload;
    this.arrivalNs = atNs;
    this.captureWallNs = wallNs;
    return this;
  }
}

/** Where the viewer takes an audio packet: no abs-capture-time, no NACK, no receiver report of ours. */
export type AudioPacketSink = (
  seq: number,
  ts: number,
  marker: boolean,
  payload: Uint8Array,
  arrivalNs: number,
) => void;

/**
 * What the viewer's SRTP start gives its chain: `ours`, werift's media handler was captured and
 * we unprotect with the remote keys; `werift`, werift unprotects, `dispatch` being its own
 * dispatch of a datagram (null where werift's internals offer none: werift then reads its media
 * itself). RTCP out either way.
 */
export type SrtpStart =
  | { srtp: "ours"; keys: RemoteSrtpKeys; sendRtcp: (rtcp: Buffer) => void }
  | { srtp: "werift"; dispatch: ((data: Buffer) => void) | null; sendRtcp: (rtcp: Buffer) => void };

/** Makes a stage in front of `next` when the viewer's SRTP starts. */
export type StageFactory<Next> = (next: Next, start: SrtpStart) => ReceiveStage;

/** A viewer's receive chain as a list, from the socket inwards. */
export interface ChainPlan {
  /** the datagram stages, outermost first, each in front of the one after it */
  datagram: StageFactory<ReceiveStage>[];
  /** the SRTP and RTP stage, in front of `last` (and of `audio`, which it is made with) */
  rtp: StageFactory<PacketStage>;
  /** the last stage */
  last: PacketStage;
  /** the audio track's last stage, beside `last` (docs/definitions.md#audio-track); null: no audio */
  audio: PacketStage | null;
}

/** A folded chain: its head, and the close of every stage in it. */
export interface FoldedChain {
  head: ReceiveStage;
  close(): void;
}

/**
 * Folds a plan into its stages, the innermost first (the one place a chain is assembled);
 * closing it closes each stage once, the head first.
 */
export function foldChain(plan: ChainPlan, start: SrtpStart): FoldedChain {
  const made: (ReceiveStage | PacketStage)[] = plan.audio !== null ? [plan.audio, plan.last] : [plan.last];
  let head = plan.rtp(plan.last, start);
  made.push(head);
  for (let i = plan.datagram.length - 1; i >= 0; i--) {
    const next = (plan.datagram[i] as StageFactory<ReceiveStage>)(head, start);
    // a factory with nothing to do (a transparent link) hands back its `next`
    if (next !== head) made.push(next);
    head = next;
  }
  let closed = false;
  return {
    head,
    close() {
      if (closed) return;
      closed = true;
      for (let i = made.length - 1; i >= 0; i--) made[i]?.close();
    },
  };
}

/** The audio track's last stage: each audio packet to the viewer's audio sink, until it closes. */
export class AudioStage implements PacketStage {
  private readonly sink: AudioPacketSink;
  private closed = false;

  constructor(sink: AudioPacketSink) {
    this.sink = sink;
  }

  receive(p: ReceivedPacket): void {
    if (!this.closed) this.sink(p.seq, p.ts, p.marker, p.payload, p.arrivalNs);
  }

  close(): void {
    this.closed = true;
  }
}

/** What the pipeline's feed is told by its viewer: counters, join detection. */
export interface PipelineFeedOptions {
  /** shard-wide packet and payload-byte counters */
  counters: { packets: number; bytes: number };
  /** after every packet (join detection) */
  afterPacket: () => void;
}

/**
 * The chain's last stage: each video packet into the viewer's pipeline (made once the codec is
 * known), counted, up to the viewer's end (`stop`): a packet that arrives after it (while its
 * DELETE is answered and its peer closes) is not the viewer's any more; one that arrived before
 * it and is processed after it still is. Its close is the viewer's end where none was set.
 */
export class PipelineStage implements PacketStage {
  private pipeline: ViewerPipeline | null = null;
  /** the viewer's end (monotonic ns); +∞ until it is known */
  private endNs = Number.POSITIVE_INFINITY;
  private readonly counters: { packets: number; bytes: number };
  private readonly after: () => void;

  constructor(opts: PipelineFeedOptions) {
    this.counters = opts.counters;
    this.after = opts.afterPacket;
  }

  /** The pipeline packets go to from now on. */
  feed(pipeline: ViewerPipeline): void {
    this.pipeline = pipeline;
  }

  /** The pipeline being fed, or null before the codec is known. */
  get current(): ViewerPipeline | null {
    return this.pipeline;
  }

  /** The viewer's end: no packet that arrives after `endNs` reaches the pipeline. */
  stop(endNs: number): void {
    this.endNs = endNs;
  }

  receive(p: ReceivedPacket): void {
    const pipeline = this.pipeline;
    if (pipeline === null || p.arrivalNs > this.endNs) return;
    this.counters.packets++;
    this.counters.bytes += p.payload.length;
    pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs);
    this.after();
  }

  close(): void {
    this.endNs = Math.min(this.endNs, monoNs());
  }
}
