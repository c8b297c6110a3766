// Verdict and no-verdict rules (docs/definitions.md#verdict), evaluated in the documented order.

import { fmtFixed } from "../go-compat/fmt.ts";

export interface VerdictInput {
  /** present when this process published */
  publisher?: { errorKind?: string; framesSent: number };
  viewers: number;
  joined: number;
  failed: number;
  /** of `failed`: viewers whose own handshake gave up (errorKind client_handshake) */
  clientHandshake?: number;
  interrupted: boolean;
}

export interface Verdict {
  valid: boolean;
  verdict: string;
}

/** A percentage printed without decimals when whole, else with one decimal (20, 15, 12.5). */
export function fmtPercent(pct: number): string {
  return Number.isInteger(pct) ? fmtFixed(pct, 0) : fmtFixed(pct, 1);
}

export function failedPercent(failed: number, viewers: number): number {
  return viewers === 0 ? 0 : (failed / viewers) * 100;
}

function baseVerdict(v: VerdictInput): Verdict {
  const kind = v.publisher?.errorKind ?? "";
  if (v.publisher !== undefined && kind !== "" && v.publisher.framesSent === 0) {
    return { valid: false, verdict: `no verdict: the publisher never streamed (${kind})` };
  }
  if (v.viewers === 0) return { valid: false, verdict: "no verdict: no viewers" };
  const own = v.clientHandshake ?? 0;
  // the rule would fail the run, but not on the server's failures alone: the client's, not the server's
  if (own > 0 && (v.joined === 0 || v.failed > 0.1 * v.viewers) && v.failed - own <= 0.1 * v.viewers) {
    const who = own === 1 ? "1 viewer's own handshake" : `${own} viewers' own handshakes`;
    return { valid: false, verdict: `no verdict: ${who} failed: the client's failure, not the server's` };
  }
  if (v.joined === 0) return { valid: false, verdict: `no verdict: none of the ${v.viewers} viewers joined` };
  if (v.failed > 0.1 * v.viewers) {
    const pct = fmtPercent(failedPercent(v.failed, v.viewers));
    return {
      valid: false,
      verdict: `no verdict: ${v.failed} of ${v.viewers} viewers (${pct}%) failed to join, above the 10% the rule allows`,
    };
  }
  return { valid: true, verdict: `valid: ${v.joined} of ${v.viewers} viewers joined` };
}

export function decideVerdict(v: VerdictInput): Verdict {
  const base = baseVerdict(v);
  if (base.valid && v.interrupted) {
    return { valid: false, verdict: "no verdict: the run was interrupted before its scheduled end" };
  }
  return base;
}
