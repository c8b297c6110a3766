// Redaction (docs/definitions.md#redaction, docs/definitions.md#redaction): only hosts ever leave the process in reports, Markdown, console
// and error messages; never paths, queries, fragments, userinfo or tokens.

import { parseGoUrl } from "./go-compat/url.ts";
import type { Scenario } from "./scenario/scenario.ts";

/** The URL's host component (`host` or `host:port`, IPv6 in brackets); `invalid-url` otherwise. */
export function host(url: string): string {
  const u = parseGoUrl(url);
  return u === null || u.host === "" ? "invalid-url" : u.host;
}

/** The scenario with `whep` and `whip` replaced by their hosts; everything else kept. */
export function redactScenario(s: Scenario): Scenario {
  const out: Scenario = { ...s, whep: host(s.whep) };
  if (s.whip !== undefined && s.whip !== "") out.whip = host(s.whip);
  return out;
}
