// Each packet's dependency descriptor as libwebrtc's receiver takes it (docs/definitions.md#decodable-frames;
// rtp_video_stream_receiver2.cc, ParseGenericDependenciesExtension): read with the last structure
// received, its frame number unwrapped into a frame id, its references the id minus each frame
// diff; a structure makes its frame a keyframe and is kept for the packets after it, unless its frame
// is older than the last structure's. A descriptor that cannot be read, or a structure on a packet
// that does not start a frame, drops the packet there: its frame never completes. Kept by sequence
// number; the render model gives a frame whose first packet had one to the generic finder
// (generic-ref-finder.ts). Fixed arrays; the structure is the one allocation, on a keyframe's first
// packet.
import { DdFields, type DdStructure, readDependencyDescriptor } from "../rtp/dependency-descriptor.ts";
import { type GenericHandOff, GenericRefFinder, MAX_REFERENCES } from "./generic-ref-finder.ts";
import { PictureIds } from "./vp8-ref-finder.ts";

/** Packets remembered, by sequence number (a power of two). */
const SLOTS = 2048;
/** per packet: seq, state (1 read, 2 dropped), frame id, key, diff count, 5 diffs */
const W = 10;

export class FrameDescriptors {
  /** frames whose first packet libwebrtc would have dropped (they never complete there) */
  droppedPackets = 0;
  readonly finder: GenericRefFinder;
  /** the frame of the last `find`: its state (find's result), id, key, diff count and diffs */
  state = 0;
  id = 0;
  key = false;
  count = 0;
  readonly fdiffs = new Int32Array(MAX_REFERENCES + 1);
  private known: DdStructure | null = null;
  private knownId = -1;
  private readonly fields = new DdFields();
  private readonly ids = new PictureIds(65536);
  private readonly rows = new Float64Array(SLOTS * W).fill(-1);

  constructor(handOff: GenericHandOff) {
    this.finder = new GenericRefFinder(handOff);
  }

  /** Frames the finder did not hand on, at the end: dropped, or still waiting. */
  get lost(): number {
    return this.droppedPackets + this.finder.dropped + this.finder.waiting;
  }

  /** Whether `has` found a descriptor libwebrtc could not read (its frame never completes there). */
  get unreadable(): boolean {
    return this.state === 2;
  }

  /** Whether the frame whose first packet is `lo` (extended) had a descriptor (then `find` read it). */
  has(lo: number): boolean {
    return this.find(lo & 0xffff) !== 0;
  }

  /**
   * The frame `has` found to the finder, the caller's three numbers with it. Returns whether it was not
   * handed on (the chain is broken there).
   */
  frame(a: number, b: number, c: number): boolean {
    if (this.state === 2) {
      this.droppedPackets++;
      return true;
    }
    return this.finder.frame(this.id, this.fdiffs, this.count, this.key, a, b, c);
  }

  /** The descriptor of the packet with 16-bit sequence number `seq`, at b[off, off + len). */
  packet(seq: number, b: Uint8Array, off: number, len: number): void {
    const o = (seq & (SLOTS - 1)) * W;
    const r = this.rows;
    r[o] = seq;
    const f = this.fields;
    if (!readDependencyDescriptor(b, off, len, this.known, f) || (f.attached && !f.start)) {
      r[o + 1] = 2;
      return;
    }
    const id = this.ids.unwrap(f.frameNumber);
    if (f.attached) {
      if (this.knownId > id) {
        r[o + 1] = 2;
        return;
      }
      this.known = f.structure;
      this.knownId = id;
    }
    r[o + 1] = 1;
    r[o + 2] = id;
    r[o + 3] = f.attached ? 1 : 0;
    // more diffs than references are kept as a count alone: the finder drops such a frame
    r[o + 4] = f.fdiffCount;
    for (let i = 0; i < Math.min(f.fdiffCount, MAX_REFERENCES); i++) r[o + 5 + i] = f.fdiffs[i]!;
  }

  /**
   * The descriptor of packet `seq` (16 bits): 1 read (its frame in id, key, count, fdiffs), 2 the
   * packet was dropped, 0 none kept.
   */
  find(seq: number): number {
    const o = (seq & (SLOTS - 1)) * W;
    const r = this.rows;
    this.state = r[o] !== seq ? 0 : r[o + 1] !== 1 ? 2 : 1;
    if (this.state !== 1) return this.state;
    this.id = r[o + 2]!;
    this.key = r[o + 3] === 1;
    this.count = r[o + 4]!;
    for (let i = 0; i < Math.min(this.count, MAX_REFERENCES); i++) this.fdiffs[i] = r[o + 5 + i]!;
    return 1;
  }
}
