// Test-only padding-only packets of a whole stream in the built-in relay (the calibration's
// "padding-only packets" pattern): a server probing bandwidth sends RTP packets that carry nothing
// but padding (RFC 3550 section 5.1, the P bit) on the media SSRC between frames. After every
// `everyFrames`-th frame's last packet (its marker bit) the relay sends `packets` of them to every
// leg, with that frame's timestamp and the sequence numbers that follow it; the publisher's later
// packets are renumbered past them for good, so the stream's numbers stay gap-free. The control
// numbers the padding but sends none: a gap no retransmission fills.

export interface PaddingOptions {
  /** padding after every n-th frame */
  everyFrames: number;
  /** padding-only packets each time */
  packets: number;
  /** padding bytes in each (1…255; libwebrtc's own probes carry up to 224) */
  bytes: number;
  /** the padding is numbered but lost on every leg (never sent, never repaired): the control */
  lost?: boolean;
}

export class StreamPadding {
  /** padding-only packets sent, in all */
  sent = 0;
  private readonly opts: PaddingOptions;
  private offset = 0;
  private frames = 0;
  /** one padding-only packet's payload: zeros, the last byte their count */
  readonly payload: Buffer;

  constructor(opts: PaddingOptions) {
    this.opts = opts;
    const n = Math.min(255, Math.max(1, Math.floor(opts.bytes)));
    this.payload = Buffer.alloc(n);
    this.payload[n - 1] = n;
  }

  /** The sequence number the legs see for the publisher's `seq`. */
  seq(seq: number): number {
    return (seq + this.offset) & 0xffff;
  }

  /**
   * The publisher's packet just forwarded ended a frame (`marker`) while the fault is `enabled`:
   * how many padding-only packets follow it now (they take the next sequence numbers).
   */
  after(marker: boolean, enabled: boolean): number {
    if (!marker) return 0;
    this.frames++;
    if (!enabled || this.frames % this.opts.everyFrames !== 0) return 0;
    this.offset += this.opts.packets;
    if (this.opts.lost === true) return 0;
    this.sent += this.opts.packets;
    return this.opts.packets;
  }
}
