// The part of Go's net/url.Parse that whipbench relies on: the scheme (lower-cased) and the
// host component (`host` or `host:port`, IPv6 in brackets, userinfo dropped), with Go's
// rejections of malformed authorities. WHATWG URL is deliberately not used: it accepts
// `http:example.com`, lower-cases and IDNA-encodes hosts and drops default ports, which Go
// does not.

export interface GoUrlParts {
  /** lower-cased scheme, "" when the URL has none */
  scheme: string;
  /** host[:port] exactly as written (Go's URL.Host), "" when there is no authority */
  host: string;
}

const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*$/;
// characters Go accepts in a host (unreserved, sub-delims, ':' for the port); anything else
// below 0x80 is an invalid host. '%' is rejected too (Go only allows escaped non-ASCII bytes).
const HOST_CHAR_RE = /^[A-Za-z0-9\-._~!$&'()*+,;=:<>"\u0080-\uffff]*$/;
const USERINFO_RE = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
// Go rejects ASCII control characters anywhere in a URL
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

function validOptionalPort(port: string): boolean {
  return port === "" || /^:[0-9]*$/.test(port);
}

function parseHost(hostIn: string): string | null {
  if (hostIn.startsWith("[")) {
    const close = hostIn.lastIndexOf("]");
    if (close < 0) return null;
    if (!validOptionalPort(hostIn.slice(close + 1))) return null;
    const inside = hostIn.slice(1, close);
    // an IPv6 literal, optionally with a %25-escaped zone (RFC 6874)
    const zoneAt = inside.indexOf("%25");
    const addr = zoneAt >= 0 ? inside.slice(0, zoneAt) : inside;
    if (!/^[0-9A-Fa-f:.]+$/.test(addr) || !addr.includes(":")) return null;
    return hostIn;
  }
  const colon = hostIn.indexOf(":");
  if (colon >= 0) {
    if (hostIn.indexOf(":", colon + 1) >= 0) return null; // a bare IPv6 or "h:1:2"
    if (!validOptionalPort(hostIn.slice(colon))) return null;
  }
  if (!HOST_CHAR_RE.test(hostIn)) return null;
  return hostIn;
}

/** Go url.Parse reduced to scheme and host; null when Go would fail to parse the URL. */
export function parseGoUrl(raw: string): GoUrlParts | null {
  if (CONTROL_RE.test(raw)) return null;
  let rest = raw;
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  let scheme = "";
  const colon = rest.indexOf(":");
  if (colon > 0 && SCHEME_RE.test(rest.slice(0, colon))) {
    scheme = rest.slice(0, colon).toLowerCase();
    rest = rest.slice(colon + 1);
  } else if (colon === 0) {
    return null; // "missing protocol scheme"
  }
  const q = rest.indexOf("?");
  if (q >= 0) rest = rest.slice(0, q);
  if (scheme !== "" && !rest.startsWith("/")) return { scheme, host: "" }; // opaque
  if (!rest.startsWith("//") || (scheme === "" && rest.startsWith("///"))) {
    if (scheme === "") {
      // Go: a colon in the first path segment of a relative URL is an error
      const slash = rest.indexOf("/");
      const first = slash >= 0 ? rest.slice(0, slash) : rest;
      if (first.includes(":")) return null;
    }
    return { scheme, host: "" };
  }
  let authority = rest.slice(2);
  const slash = authority.indexOf("/");
  if (slash >= 0) authority = authority.slice(0, slash);
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    if (!USERINFO_RE.test(authority.slice(0, at))) return null;
    authority = authority.slice(at + 1);
  }
  const host = parseHost(authority);
  if (host === null) return null;
  return { scheme, host };
}

/**
 * True when `raw` is an absolute http or https URL with a host (the scenario rule,
 * docs/definitions.md#scenario-validation).
 */
export function isHttpUrl(raw: string): boolean {
  const u = parseGoUrl(raw);
  return u !== null && (u.scheme === "http" || u.scheme === "https") && u.host !== "";
}
