// The audio track's counts of one viewer, which every receive path must give alike (docs/definitions.md#audio-track).
import assert from "node:assert/strict";
import type { ViewerReport } from "../../src/core/report/types.ts";

/** The audio track's counts (docs/definitions.md#audio-track): the same packets reach every leg. */
export function audioFigures(v: ViewerReport) {
  const a = v.audio;
  assert.ok(a !== undefined, `viewer ${v.id} has an audio block`);
  const d = a.oneWayDelay;
  return {
    available: a.available,
    received: a.packetsReceived,
    expected: a.packetsExpected,
    lost: a.packetsLost,
    samples: d.samples,
    invalid: d.invalid,
    unmatched: d.unmatchedPackets,
    duplicates: d.duplicatePackets,
    excluded: d.excludedPackets,
  };
}
