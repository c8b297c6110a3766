// The per-viewer figures that must be identical for every viewer of one stream, whatever path
// or socket read it (receive-path.test.ts, shared-socket.test.ts).
import type { ViewerReport } from "../../src/core/report/types.ts";
import { audioFigures } from "./audio-figures.ts";

/**
 * The figures that must be identical on every path. Duplicates are not among them: a repaired
 * packet arrives twice when a viewer's NACK retry leaves before the first retransmission has
 * arrived, which depends on the machine's load, not on the path (and no other figure takes a
 * duplicate). Nor are the render model's intervals and PLIs, which depend on the instants.
 */
export function figures(v: ViewerReport) {
  const b = v.oneWayDelay[0]!;
  return {
    joined: v.joined,
    received: v.rtp.received,
    expected: v.rtp.expected,
    lost: v.rtp.lost,
    tooLate: v.rtp.tooLate,
    nacksSent: v.nacksSent,
    keyframes: v.rtp.keyframes,
    completeFrames: b.completeFrames,
    incompleteFrames: b.incompleteFrames,
    lateCompletedFrames: b.lateCompletedFrames,
    samples: b.samples,
    invalid: b.invalid,
    unmatchedFrames: b.unmatchedFrames,
    stamped: v.packetTransit.stamped,
    // the render model's frame counts (docs/definitions.md#decodable-frames); not its intervals
    // or PLIs, which depend on the instants, nor how the decodable frames split between shown and
    // skipped by the playout (a frame ≥ 5 ms past its render time is skipped when a later one is
    // waiting: docs/definitions.md#playout), which does too
    render: {
      finder: v.render.finder,
      framesShownOrLate: v.render.framesShown + v.render.framesLate,
      framesNotDecodable: v.render.framesNotDecodable,
    },
    audio: audioFigures(v),
  };
}
