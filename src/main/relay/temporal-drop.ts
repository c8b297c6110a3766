// Test hook dropTopLayerEvery (the calibration's "VP8 temporal layers, one top-layer frame lost every
// N"): every packet of every n-th upper-layer frame dropped for every leg before any leg's sender
// has it, so no NACK brings it back. An upper-layer frame is one whose VP8 descriptor has TID ≥ 1;
// on a stream without TIDs (the control) every second frame counts as one, so the same share of
// frames is lost (docs/definitions.md#viewer-experience, "Checked against libwebrtc").
import { vp8Layers } from "../../core/render/vp8-ref-finder.ts";

export class TemporalDrop {
  private ts = -1;
  private frames = 0;
  private upper = 0;
  private dropping = false;
  private readonly every: number;

  constructor(every: number) {
    this.every = every;
  }

  /** Whether this packet (its RTP timestamp and VP8 payload) is dropped; `on`: the hook is set now. */
  drop(ts: number, payload: Uint8Array, on: boolean): boolean {
    if (ts !== this.ts) {
      this.ts = ts;
      this.frames++;
      const layers = vp8Layers(payload);
      const upper = layers >= 0 ? (layers & 3) > 0 : this.frames % 2 === 0;
      if (upper) this.upper++;
      this.dropping = on && upper && this.upper % this.every === 0;
    }
    return this.dropping;
  }
}
