// The WHIP/WHEP HTTP exchange (docs/definitions.md#whip-and-whep-http-exchange): POST an SDP offer,
// read a bounded answer, PATCH an answer to a counter-offer, DELETE the session. Error messages
// name the host only: no path, query, userinfo or token ever reaches them.

import { HttpExchangeError } from "../core/errors.ts";
import { host } from "../core/redact.ts";

// the class lives in the catalogue; re-exported for the viewer thread's imports
export { type HttpErrorKind, HttpExchangeError } from "../core/errors.ts";

export interface SdpResponse {
  status: number;
  sdp: string;
  /** absolute URL of the session resource, or null when the server sent no Location */
  location: string | null;
  /** the answer's Link header values, joined (the WHEP extensions offered), or null */
  links: string | null;
}

export interface ExchangeOptions {
  bearer?: string | undefined;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

const MAX_BODY_BYTES = 1 << 20;

function checkUrl(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (err) {
    throw new HttpExchangeError("bad_url", "endpoint is not an http(s) URL", 0, { cause: err });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new HttpExchangeError("bad_url", "endpoint is not an http(s) URL");
  }
  return url;
}

function causeText(
  err: unknown,
  timedOut: boolean,
  signal: AbortSignal | undefined,
  answered: boolean,
): string {
  // a caller's deadline (the viewer's join timeout) is a timeout too, not a cancellation
  if (
    timedOut ||
    (signal?.aborted && (signal.reason as { name?: string } | undefined)?.name === "TimeoutError")
  )
    return "timed out";
  if (signal?.aborted) return "cancelled";
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  // fetch refuses the ports of the Fetch standard's block list (5060, 6667 …) before connecting
  if (cause?.message === "bad port") return "the port is blocked by fetch (a bad port of the Fetch standard)";
  switch (cause?.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "UND_ERR_SOCKET":
      // undici's "other side closed": the server ended the connection (FIN) — SRS does so, with
      // no status line, on any negotiation error
      if (cause.message !== "other side closed") return "connection reset";
      return answered
        ? "the server closed the connection before the end of its answer"
        : "the server closed the connection without a response";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    default:
      return "request failed";
  }
}

async function readBounded(res: Response): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function request(
  method: "POST" | "PATCH" | "DELETE",
  url: URL,
  body: string | undefined,
  opts: ExchangeOptions,
): Promise<{ res: Response; text: string | null }> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const headers: Record<string, string> = {};
  if (body !== undefined) {
    headers["content-type"] = "application/sdp";
    headers["accept"] = "application/sdp";
  }
  // fetch refuses a URL with userinfo; like Go's client, send it as Basic auth unless a bearer is set
  const target = new URL(url.href);
  if (target.username !== "" || target.password !== "") {
    const user = `${decoded(target.username)}:${decoded(target.password)}`;
    if (!opts.bearer) headers["authorization"] = `Basic ${Buffer.from(user, "utf8").toString("base64")}`;
    target.username = "";
    target.password = "";
  }
  if (opts.bearer) headers["authorization"] = `Bearer ${opts.bearer}`;
  let res: Response | undefined;
  try {
    const init: RequestInit = { method, headers, signal, redirect: "manual" };
    if (body !== undefined) init.body = body;
    res = await fetch(target, init);
    const text = method === "DELETE" ? "" : await readBounded(res);
    return { res, text };
  } catch (err) {
    const why = causeText(err, timeout.aborted, opts.signal, res !== undefined);
    throw new HttpExchangeError("transport", `${method} to ${host(url.href)}: ${why}`, 0, { cause: err });
  }
}

/** A percent-encoded userinfo part, decoded; as written when its encoding is broken. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function locationOf(res: Response, base: URL): string | null {
  const loc = res.headers.get("location");
  if (!loc) return null;
  try {
    return new URL(loc, base).href;
  } catch {
    return null;
  }
}

/**
 * POST an offer. 200/201 → the answer; 406 with an SDP body → the server's counter-offer
 * (status 406, the viewer answers it with `patchAnswer`). Anything else throws.
 */
export async function postOffer(endpoint: string, sdp: string, opts: ExchangeOptions): Promise<SdpResponse> {
  const url = checkUrl(endpoint);
  const { res, text } = await request("POST", url, sdp, opts);
  const h = host(url.href);
  const ok = res.status === 200 || res.status === 201;
  if (!ok && res.status !== 406) {
    throw new HttpExchangeError("http_status", `POST to ${h}: HTTP ${res.status}`, res.status);
  }
  const location = locationOf(res, url);
  if (text === null || !text.startsWith("v=0")) {
    // the server may have created a session even if its body is refused: a 2xx (or a 406
    // counter-offer) with a Location always gets its DELETE, here, since the caller never sees it
    await deleteResource(location, { bearer: opts.bearer });
    if (text === null) throw new HttpExchangeError("bad_answer", `the answer from ${h} is too large`);
    if (res.status === 406) throw new HttpExchangeError("http_status", `POST to ${h}: HTTP 406`, 406);
    throw new HttpExchangeError("bad_answer", `the answer from ${h} is ${text === "" ? "empty" : "not SDP"}`);
  }
  return { status: res.status, sdp: text, location, links: res.headers.get("link") };
}

/** PATCH our answer to a server's counter-offer (the 406 flow). */
export async function patchAnswer(resource: string, sdp: string, opts: ExchangeOptions): Promise<void> {
  const url = checkUrl(resource);
  const { res } = await request("PATCH", url, sdp, opts);
  if (res.status < 200 || res.status > 299) {
    throw new HttpExchangeError("http_status", `PATCH to ${host(url.href)}: HTTP ${res.status}`, res.status);
  }
}

/** DELETE a session resource; errors are ignored (docs/definitions.md#whip-and-whep-http-exchange). */
export async function deleteResource(resource: string | null, opts: ExchangeOptions): Promise<void> {
  if (!resource) return;
  try {
    await request("DELETE", checkUrl(resource), undefined, { ...opts, timeoutMs: opts.timeoutMs ?? 3000 });
  } catch {
    // nothing to do: the session ends with the peer connection anyway
  }
}
