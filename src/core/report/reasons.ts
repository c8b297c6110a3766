// Exact reason texts of the one-way delay and packet transit blocks
// (docs/definitions.md#one-way-delay, docs/definitions.md#packet-transit), and the "most common
// reason" rule used by pooling; the loss ratios' and the jitter's reasons and how the reports print them.

import { fmtFixed } from "../go-compat/fmt.ts";

export const NO_SEND_LOG_REASON =
  "no send log: the send log lives in the `run` process that publishes the clip, and this process published nothing";

export const NO_TRACK_REASON = "no video track reached this viewer";

export function codecReason(codec: string): string {
  return `codec "${codec}" has no fingerprint`;
}

export function noValidSampleReason(
  complete: number,
  unmatched: number,
  invalid: number,
  excluded: number,
  incomplete: number,
): string {
  return `no valid sample: ${complete} complete frames (${unmatched} unmatched, ${invalid} invalid, ${excluded} excluded), ${incomplete} incomplete`;
}

export const TRANSIT_NOT_NEGOTIATED_REASON =
  "not negotiated: the WHEP answer did not accept abs-capture-time";

export const TRANSIT_NO_STAMPS_REASON =
  "no stamps arrived: the server strips or rewrites the header extension, or the publisher did not stamp";

export function transitInvalidReason(invalid: number, stamped: number): string {
  return `${invalid} of ${stamped} stamps gave a negative or implausible delay: the clocks are not synchronised, or the server rewrites the extension`;
}

export const TRANSIT_NO_VALID_REASON = "no valid samples";

export const NO_VIEWER_JOINED_REASON = "no viewer joined";

/** Why a loss ratio is null (docs/definitions.md#aggregate): no packet was expected, so none was lost. */
export const NO_PACKET_EXPECTED_REASON = "no packet was expected: no joined viewer received one";

/** A loss ratio in a sentence: `1.250%`, or `unavailable, because <reason>` where it is null. */
export function lossSentence(v: number | null, digits: number, reason = NO_PACKET_EXPECTED_REASON): string {
  return v === null ? `unavailable, because ${reason}` : `${fmtFixed(v, digits)}%`;
}

/** A loss ratio in a table cell: `1.25%`, or a dash where it is null (nothing was expected). */
export function lossCell(v: number | null, digits: number): string {
  return v === null ? "—" : `${fmtFixed(v, digits)}%`;
}

/**
 * Why a jitter is null (docs/definitions.md#rtp-statistics): RFC 3550's D compares a packet with
 * the one before, so jitter needs two packets.
 */
export function jitterUnmeasuredReason(received: number): string {
  return `${received === 0 ? "no packet" : "one packet"} arrived: interarrival jitter needs two`;
}

/** Why a jitter threshold is unavailable: no joined viewer measured one. */
export const NO_JITTER_REASON = "no joined viewer received two packets: jitter was not measured";

/** A jitter in a table cell: `0.63 ms`, or a dash where it is null (fewer than two packets). */
export function jitterCell(v: number | null | undefined, digits: number): string {
  return v === null || v === undefined ? "—" : `${fmtFixed(v, digits)} ms`;
}

export function pooledPartialReason(pooled: number, joined: number, reason: string): string {
  return `pooled over ${pooled} of ${joined} joined viewers; the other ${joined - pooled} had none (${reason})`;
}

/** Byte-wise (UTF-8) comparison of two strings, as Go compares strings. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Highest count wins; compareBytes(reason, best) < 0 to the byte-wise smallest string. "" for an
 * empty list.
 */
export function mostCommonReason(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  let best = "";
  let bestCount = 0;
  for (const [reason, count] of counts) {
    if (count > bestCount || (count === bestCount && compareBytes(reason, best) < 0)) {
      best = reason;
      bestCount = count;
    }
  }
  return best;
}
