// The report's timeline entry (docs/definitions.md#timeline), one per second of the viewers' phase.

/** docs/definitions.md#timeline one timeline entry. */
export interface TimelineEntry {
  t: number;
  active: number;
  packets: number;
  /** our addition: process CPU over that second, % of all cores */
  cpuPercent?: number;
  /** our addition: the worst p99 event-loop delay of the shard threads over that second, ms */
  eventLoopDelayMs?: number;
  /**
   * our addition: the worst p99 receive lag of the viewer threads over that second, ms (absent:
   * none stamped)
   */
  receiveLagMs?: number;
  /**
   * our addition: the viewers frozen that second, on average: frozen viewer-time in it / 1 s
   * (docs/definitions.md#viewers-frozen-per-second)
   */
  viewersFrozen?: number;
}
