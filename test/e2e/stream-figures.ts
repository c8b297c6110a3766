// The per-viewer figures that must be identical for every viewer of one stream, whatever path
// or socket read it (receive-path.test.ts, shared-socket.test.ts).
import type { ViewerReport } from "../../src/core/report/types.ts";
import { audioFigures } from "./audio-figures.ts";

/**
 * The figures that must be identical on every path. Duplicates are not among them: a repaired
 * packet arrives twice when a viewer's NACK retry leaves before the first retransmission has
 * arrived, which depends on the machine's load, not on the path (and no other figure takes a
 * duplicate). Nor are the render model's intervals and PLIs, which depend on the instants, nor
 * `nacksSent`: the sequence numbers due on one 20 ms tick share a message (libwebrtc's batching,
 * docs/definitions.md#nacks), so how many messages a viewer's requests take depends on where its
 * ticks fall (`nacksAgree` holds them to the same requests).
 */
export function figures(v: ViewerReport) {
  const b = v.oneWayDelay[0]!;
  return {
    joined: v.joined,
    received: v.rtp.received,
    expected: v.rtp.expected,
    lost: v.rtp.lost,
    tooLate: v.rtp.tooLate,
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

/**
 * The NACK messages of viewers that asked for the same packets: each unrepaired loss is asked for
 * 10 times, one message per tick at most, so a viewer sends at least 10 messages and at most one
 * per request; between viewers the count moves only with how their ticks batch the requests.
 */
export function nacksAgree(vs: readonly ViewerReport[], unrepaired: number): string | null {
  for (const v of vs) {
    if (v.nacksSent < 10 || v.nacksSent > 10 * unrepaired + v.rtp.expected / 5)
      return `viewer ${v.id}: ${v.nacksSent} NACK messages for ${unrepaired} unrepaired losses`;
  }
  // how far batching moves the count: a retry due on a tick shares its message with every other
  // number due then, so the phase of a viewer's 20 ms grid against the losses decides how many
  // retries coincide; the widest spread on record is 35 to 46 (1.31×, h264 in CI on 2026-12-07,
  // one path's two viewers 37 and 46), and a path that asked twice or half as often is past 1.5×.
  // (29 to 46 in CI with two CPU hogs, 2026-12-07, the 46 an arena viewer: its gaps' first NACKs
  // were stamped with the kernel's arrival, so on a busy thread each first retry was overdue and went
  // out alone; requests are now stamped when written, docs/definitions.md#nacks)
  const ns = vs.map((v) => v.nacksSent);
  if (Math.max(...ns) > 1.5 * Math.min(...ns))
    return `NACK messages differ beyond batching: ${ns.join(", ")}`;
  return null;
}
