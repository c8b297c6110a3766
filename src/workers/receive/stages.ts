// The shape of a viewer's receive chain (chain.ts builds it): every datagram stage takes the
// datagram (its first `length` bytes; on the arena path a view into the reader's arena, valid
// during the call only) and its arrival instant (monotonic ns), in the manner of pion's
// interceptors; the RTP stage (receiver.ts on the lean and arena paths, werift-stage.ts on
// werift's) reads the packet's fields once and hands them to the last stage, the pipeline's feed
// (PipelineStage), which stops at the viewer's end.
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";

/** One stage of a viewer's chain: a datagram of `length` bytes at the start of `data`. */
export interface ReceiveStage {
  receive(data: Buffer, length: number, arrivalNs: number): void;
}

/** Where a received video packet goes: the pipeline's own call, the same on every path. */
export type PacketSink = ViewerPipeline["onPacket"];

/** Where an audio packet goes: no abs-capture-time, no NACK, no receiver report of ours. */
export type AudioPacketSink = (
  seq: number,
  ts: number,
  marker: boolean,
  payload: Uint8Array,
  arrivalNs: number,
) => void;

/** What the pipeline's feed is told by its viewer: counters, the pipeline, join detection. */
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
 * it and is processed after it still is.
 */
export class PipelineStage {
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

  readonly packet: PacketSink = (seq, ts, marker, payload, arrivalNs, captureWallNs) => {
    const p = this.pipeline;
    if (p === null || arrivalNs > this.endNs) return;
    this.counters.packets++;
    this.counters.bytes += payload.length;
    p.onPacket(seq, ts, marker, payload, arrivalNs, captureWallNs);
    this.after();
  };
}
