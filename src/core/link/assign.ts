// Which viewers each cohort takes (docs/definitions.md#cohorts), and the cohorts as a report's
// scenario writes them (the scenario's own notation, so it parses again).

import { goDuration } from "../go-compat/time.ts";
import type { Cohort, DirectionProfile, LinkStep } from "./types.ts";

/**
 * How many viewers each cohort takes out of `viewers`: counts first, in order, each capped at
 * what is left; then the shares of what the counts left, by cumulative rounding (so they never
 * add up to more than there are, and a share stays a share as the viewer count grows).
 */
export function cohortSizes(cohorts: readonly Cohort[], viewers: number): number[] {
  let left = viewers;
  const sizes = cohorts.map((c) => {
    if (c.viewers === undefined) return 0;
    const n = Math.min(c.viewers, left);
    left -= n;
    return n;
  });
  const rest = left;
  let cum = 0;
  let taken = 0;
  for (const [i, c] of cohorts.entries()) {
    if (c.share === undefined) continue;
    cum += c.share;
    const upTo = Math.min(Math.round(cum * rest), rest);
    sizes[i] = Math.max(upTo - taken, 0);
    taken += sizes[i] ?? 0;
  }
  return sizes;
}

/**
 * The cohort index of each viewer id (−1: unimpaired). Each group's members are spread evenly
 * over the ids (ideal positions (j + ½)·n/size, merged in order), so every cohort spans the ramp
 * and every worker thread rather than taking a block of ids.
 */
export function assignCohorts(cohorts: readonly Cohort[], viewers: number): number[] {
  const sizes = cohortSizes(cohorts, viewers);
  const rest = viewers - sizes.reduce((a, b) => a + b, 0);
  const slots: { pos: number; group: number }[] = [];
  const groups = [...sizes.map((n, g) => [g, n] as const), [-1, rest] as const];
  for (const [g, n] of groups) {
    for (let j = 0; j < n; j++) slots.push({ pos: ((j + 0.5) * viewers) / n, group: g });
  }
  slots.sort((a, b) => a.pos - b.pos || a.group - b.group);
  return slots.map((s) => s.group);
}

function pct(p: number): string {
  return `${Math.round(p * 1e8) / 1e6}%`;
}

function rateText(bps: number): string {
  if (bps % 1e9 === 0) return `${bps / 1e9}Gbps`;
  if (bps % 1e6 === 0) return `${bps / 1e6}Mbps`;
  if (bps % 1e3 === 0) return `${bps / 1e3}kbps`;
  return `${bps}bps`;
}

/** A direction as the scenario writes it. */
export function directionJson(p: DirectionProfile): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (p.delayNs !== undefined) o.delay = goDuration(p.delayNs);
  if (p.jitterNs !== undefined) o.jitter = goDuration(p.jitterNs);
  if (p.distribution !== undefined) o.distribution = p.distribution;
  if (p.reorder !== undefined) o.reorder = p.reorder;
  if (p.loss !== undefined) o.loss = pct(p.loss);
  if (p.burst !== undefined) {
    const b = p.burst;
    o.burst = {
      enter: pct(b.enter),
      leave: pct(b.leave),
      lossBad: pct(b.lossBad),
      lossGood: pct(b.lossGood),
    };
  }
  if (p.rateBps !== undefined) o.rate = rateText(p.rateBps);
  if (p.queueBytes !== undefined) o.queue = `${p.queueBytes}B`;
  if (p.queueNs !== undefined) o.queue = goDuration(p.queueNs);
  return o;
}

function stepJson(s: LinkStep): Record<string, unknown> {
  const o: Record<string, unknown> = { at: goDuration(s.atNs) };
  if (s.forNs !== undefined) o.for = goDuration(s.forNs);
  if (s.down !== undefined) o.down = directionJson(s.down);
  if (s.up !== undefined) o.up = directionJson(s.up);
  return o;
}

/** The cohorts in the scenario's notation, keys in a fixed order. */
export function cohortsJson(cohorts: readonly Cohort[]): Record<string, unknown>[] {
  return cohorts.map((c) => {
    const o: Record<string, unknown> = { name: c.name };
    if (c.viewers !== undefined) o.viewers = c.viewers;
    if (c.share !== undefined) o.share = c.share;
    if (Object.keys(c.down).length > 0) o.down = directionJson(c.down);
    if (Object.keys(c.up).length > 0) o.up = directionJson(c.up);
    if (c.steps.length > 0) o.steps = c.steps.map(stepJson);
    if (c.seed !== 0) o.seed = c.seed;
    if (c.referenceViewers !== undefined) o.referenceViewers = c.referenceViewers;
    if (c.layer !== undefined) o.layer = c.layer;
    if (c.layerSwitch !== undefined) o.layerSwitch = { ...c.layerSwitch };
    return o;
  });
}
