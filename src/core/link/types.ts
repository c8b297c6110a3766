// Emulated links per viewer cohort (docs/definitions.md#cohorts): the profile of one direction,
// the timed steps that change it, a cohort and what the emulator did. Probabilities are 0..1,
// durations ns, rates bits per second.

import type { LayerSwitchSpec } from "../layer/spec.ts";

/** How the jitter of each datagram is drawn (docs/definitions.md#link-profile). */
export type JitterDistribution = "uniform" | "normal";

/** Gilbert–Elliott burst loss: a good and a bad state, a loss chance in each. */
export interface GilbertElliott {
  /** chance per datagram of moving from the good state to the bad one */
  enter: number;
  /** chance per datagram of moving from the bad state back to the good one */
  leave: number;
  /** loss chance in the bad state (default 1) */
  lossBad: number;
  /** loss chance in the good state (default 0) */
  lossGood: number;
}

/** One direction of an emulated link; an absent field adds nothing. */
export interface DirectionProfile {
  delayNs?: number;
  jitterNs?: number;
  distribution?: JitterDistribution;
  /** jitter may reorder datagrams (default: never, a datagram leaves no earlier than the one before it) */
  reorder?: boolean;
  /** independent random loss chance per datagram */
  loss?: number;
  burst?: GilbertElliott;
  /** the bottleneck's rate; datagrams queue behind it */
  rateBps?: number;
  /** the queue's limit in bytes … */
  queueBytes?: number;
  /** … or in ms of transmission at the rate (default 100 ms when neither is given) */
  queueNs?: number;
}

/**
 * A timed change: from `atNs` after the run's t0, for `forNs` (absent: to the end), these fields
 * replace the base's.
 */
export interface LinkStep {
  atNs: number;
  forNs?: number;
  down?: DirectionProfile;
  up?: DirectionProfile;
}

/** A named group of viewers sharing one emulated link profile. */
export interface Cohort {
  name: string;
  /** a count of viewers … */
  viewers?: number;
  /** … or a share of the scenario's viewers (0..1) */
  share?: number;
  /** server → viewer */
  down: DirectionProfile;
  /** viewer → server */
  up: DirectionProfile;
  steps: LinkStep[];
  /** the seed of every viewer's draws (default 0) */
  seed: number;
  /** libwebrtc reference viewers beside it (docs/definitions.md#reference-viewers); absent: the scenario's */
  referenceViewers?: number;
  /** the simulcast layer its viewers ask for from their start (docs/definitions.md#cohort-layers) */
  layer?: string;
  /** its viewers' own layer switch, in place of the scenario's `layerSwitch` */
  layerSwitch?: LayerSwitchSpec;
}

/** What the emulator did to one direction of one viewer's link. */
export interface LinkCounts {
  /** datagrams that entered the emulated link */
  datagrams: number;
  /** datagrams delivered later than they entered (delay, jitter or queueing) */
  delayed: number;
  /** dropped by random or burst loss */
  droppedLoss: number;
  /** dropped because the rate limit's queue was full (tail drop) */
  droppedQueue: number;
}

/** Both directions of one viewer's link. */
export interface LinkRecord {
  down: LinkCounts;
  up: LinkCounts;
}

export function emptyCounts(): LinkCounts {
  return { datagrams: 0, delayed: 0, droppedLoss: 0, droppedQueue: 0 };
}

export function addCounts(a: LinkCounts, b: LinkCounts): LinkCounts {
  return {
    datagrams: a.datagrams + b.datagrams,
    delayed: a.delayed + b.delayed,
    droppedLoss: a.droppedLoss + b.droppedLoss,
    droppedQueue: a.droppedQueue + b.droppedQueue,
  };
}

/** The default queue of a rate limit given without one. */
export const DEFAULT_QUEUE_NS = 100_000_000;
