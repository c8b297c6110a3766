// HTTP Link header values (RFC 8288) as a WHEP answer carries them to offer its extensions
// (docs/definitions.md#layer-switches): `<url>; rel="…"; …`, several per header or several headers
// joined by commas. Each rel of a link maps to its URL, resolved against the request's URL.

/** The WHEP extensions' rels (the WHEP draft's core extensions): layer selection and its events. */
export const WHEP_LAYER_REL = "urn:ietf:params:whep:ext:core:layer";
export const WHEP_SSE_REL = "urn:ietf:params:whep:ext:core:server-sent-events";

/** The URL of each rel the Link values name (the first link for a rel wins); bad URLs are skipped. */
export function linkRels(value: string | null, base: string): Map<string, string> {
  const out = new Map<string, string>();
  if (value === null) return out;
  // a link is `<…>` and its parameters, up to the next `,` outside quotes and angle brackets
  const links: string[] = [];
  let cur = "";
  let quoted = false;
  let angled = false;
  for (const ch of value) {
    if (ch === '"' && !angled) quoted = !quoted;
    else if (ch === "<" && !quoted) angled = true;
    else if (ch === ">" && !quoted) angled = false;
    if (ch === "," && !quoted && !angled) {
      links.push(cur);
      cur = "";
    } else cur += ch;
  }
  links.push(cur);
  for (const link of links) {
    const m = /^\s*<([^>]*)>(.*)$/s.exec(link);
    if (m === null) continue;
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(m[2] ?? "");
    const rels = (rel?.[1] ?? rel?.[2] ?? "").split(/\s+/).filter((r) => r !== "");
    let url: string;
    try {
      url = new URL(m[1] ?? "", base).href;
    } catch {
      continue;
    }
    for (const r of rels) if (!out.has(r)) out.set(r, url);
  }
  return out;
}
