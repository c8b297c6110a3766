// Test-only ground truth of the relay's DropEvery knob: per viewer leg, the packets it dropped
// and the frames (runs of one RTP timestamp, in the order the publisher sent them) it cut, so a
// test can compare the viewer's incompleteFrames with what the relay knows it did.

export interface FrameCutCounts {
  /** packets dropped */
  droppedPackets: number;
  /** frames from which at least one packet was dropped */
  cutFrames: number;
  /** of those, frames every packet of which was dropped: the viewer never sees them */
  wholeFramesDropped: number;
  /**
   * of those, frames (not dropped whole) whose last packet was dropped and that a next frame
   * followed: the case where the reference rule also loses that next frame
   */
  lastPacketCuts: number;
}

export class FrameCuts {
  private droppedPackets = 0;
  private cutFrames = 0;
  private wholeFramesDropped = 0;
  private lastPacketCuts = 0;
  private lastDropped = false;
  private haveTs = false;
  private ts = 0;
  private dropped = 0;
  private kept = 0;

  /** One publisher packet offered to the leg, with its timestamp as the leg sends it, dropped or not. */
  see(ts: number, dropped: boolean): void {
    if (!this.haveTs || ts !== this.ts) {
      this.closeFrame();
      this.haveTs = true;
      this.ts = ts;
    }
    if (dropped) {
      this.dropped++;
      this.droppedPackets++;
    } else {
      this.kept++;
    }
    this.lastDropped = dropped;
  }

  /** The counts so far, the frame now being forwarded included. */
  counts(): FrameCutCounts {
    const open = this.dropped > 0 ? 1 : 0;
    return {
      droppedPackets: this.droppedPackets,
      cutFrames: this.cutFrames + open,
      wholeFramesDropped: this.wholeFramesDropped + (open === 1 && this.kept === 0 ? 1 : 0),
      lastPacketCuts: this.lastPacketCuts,
    };
  }

  private closeFrame(): void {
    if (this.dropped > 0) {
      this.cutFrames++;
      if (this.kept === 0) this.wholeFramesDropped++;
      else if (this.lastDropped) this.lastPacketCuts++;
    }
    this.dropped = 0;
    this.kept = 0;
  }
}
