// Redaction (docs/definitions.md#redaction, docs/definitions.md#redaction): only hosts ever leave
// the process in reports, Markdown, console and error messages; never paths, queries, fragments,
// userinfo or tokens.

import { parseGoUrl } from "./go-compat/url.ts";
import type { Scenario } from "./scenario/types.ts";

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

const SECRET_WORDS = "bearer|token|secret|password|passwd|api[_-]?key|authorization|auth|key";
const SECRET_VALUE = new RegExp(`\\b(${SECRET_WORDS})(["']?\\s*[:=]\\s*)("[^"]*"|'[^']*'|[^\\s,;]+)`, "gi");

/**
 * Names a word with a `/` as one of the project's own files (`bench/servers/janus/install.sh`,
 * relative to the checkout), or `undefined` when it is any other path. The caller decides what
 * its files are (src/core does not read the file system).
 */
export type OwnFileNamer = (word: string) => string | undefined;

/**
 * Free text from outside the program (a server command's output) made fit for a report, a log
 * line or the console: the literal `secrets` first, then every URL cut to its host, a bearer
 * token and a secret word's value (`token=…`, `password: …`), every word with a `/` (a path)
 * unless `ownFile` names it as one of the project's own files, a query string, and any long
 * unbroken run of token characters (hex, base64, a JWT); control characters become spaces.
 */
export function redactText(text: string, secrets: readonly string[] = [], ownFile?: OwnFileNamer): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("<redacted>");
  return out
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, " ")
    .replace(/\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>()]+/g, (url) => host(url))
    .replace(/\b(Bearer)(\s+)[^\s,;]+/g, "$1$2<redacted>")
    .replace(SECRET_VALUE, "$1$2<redacted>")
    .replace(/[^\s"'<>():,;]*\/[^\s"'<>():,;]*/g, (word) => ownPath(word, ownFile))
    .replace(/\?[^\s]*/g, "?<query>")
    .replace(/[A-Za-z0-9+_=.-]{24,}/g, "<redacted>");
}

/** A path word as the project's own file name (its trailing full stops kept), else `<path>`. */
function ownPath(word: string, ownFile: OwnFileNamer | undefined): string {
  if (ownFile === undefined || word.includes("?")) return "<path>";
  const bare = word.replace(/\.+$/, "");
  const named = bare === "" ? undefined : ownFile(bare);
  return named === undefined ? "<path>" : `${named}${word.slice(bare.length)}`;
}
