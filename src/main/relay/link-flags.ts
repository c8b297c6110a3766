// `whipbench relay`'s link flags (--link-loss, --link-burst, --link-delay, --link-jitter,
// --link-duplicate, --link-after, --link-seed, --link-media-only) as the relay's link profile
// (docs/definitions.md#relay-link); a combination that means nothing is a usage error naming it.
import { UsageError } from "../../core/errors.ts";
import { type LegLinkProfile, legLinkActive } from "../../core/link/leg-link.ts";

export interface LinkFlags {
  linkLoss?: number;
  linkBurst?: number;
  linkDelay?: number;
  linkJitter?: number;
  linkDuplicate?: number;
  linkAfter?: number;
  linkSeed?: number;
  linkMediaOnly?: boolean;
}

/** The most a link may delay a datagram (delay or jitter). */
export const LINK_MAX_NS = 10_000_000_000;

/** The profile the flags ask for, or undefined where none changes anything. */
export function linkProfile(f: LinkFlags): LegLinkProfile | undefined {
  if (f.linkBurst !== undefined && f.linkBurst > 1 && !(f.linkLoss !== undefined && f.linkLoss > 0))
    throw new UsageError("--link-burst: needs --link-loss (the burst model's long-run loss)");
  if (f.linkLoss === 1 && f.linkBurst !== undefined && f.linkBurst > 1)
    throw new UsageError("--link-burst: with --link-loss 100% every datagram is lost, bursts mean nothing");
  for (const [flag, ns] of [
    ["--link-delay", f.linkDelay],
    ["--link-jitter", f.linkJitter],
    ["--link-after", f.linkAfter],
  ] as const) {
    if (ns !== undefined && (ns < 0 || ns > LINK_MAX_NS))
      throw new UsageError(`${flag}: want a duration from 0s to ${LINK_MAX_NS / 1e9}s`);
  }
  const p: LegLinkProfile = {
    loss: f.linkLoss ?? 0,
    delayNs: f.linkDelay ?? 0,
    jitterNs: f.linkJitter ?? 0,
    duplicate: f.linkDuplicate ?? 0,
    afterNs: f.linkAfter ?? 0,
    seed: f.linkSeed ?? 0,
  };
  if (f.linkBurst !== undefined && f.linkBurst > 1) p.burstDatagrams = f.linkBurst;
  if (f.linkMediaOnly === true) p.mediaOnly = true;
  return legLinkActive(p) ? p : undefined;
}

/** The startup line's words for a link, e.g. "5% loss in bursts of 10 (mean), 20ms ± 5ms". */
export function describeLink(p: LegLinkProfile): string {
  const parts: string[] = [];
  const pct = (x: number) => `${Math.round(x * 1e6) / 1e4}%`;
  const ms = (ns: number) => `${Math.round(ns / 1e3) / 1e3}ms`;
  if (p.loss > 0)
    parts.push(
      `${pct(p.loss)} loss${p.burstDatagrams !== undefined ? ` in bursts of ${p.burstDatagrams} (mean, Gilbert–Elliott)` : " (independent)"}`,
    );
  if (p.delayNs > 0 || p.jitterNs > 0)
    parts.push(`delay ${ms(p.delayNs)}${p.jitterNs > 0 ? ` ± ${ms(p.jitterNs)} (normal, reorders)` : ""}`);
  if (p.duplicate > 0) parts.push(`${pct(p.duplicate)} duplicated`);
  if (p.afterNs > 0) parts.push(`from ${ms(p.afterNs)} after each leg's first datagram`);
  const which = p.mediaOnly === true ? "SRTP and SRTCP only" : "every datagram";
  return `${parts.join(", ")}; ${which}; seed ${p.seed}; relay → viewer only`;
}
