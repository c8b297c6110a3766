// The send-log side channel of a split run: `publish --send-log-listen ADDR` serves its clip's
// identity and every frame's send instant (on its wall clock) over HTTP; `view --send-log-peer
// ADDR` follows it, so a viewer on another host can match frames and measure the fingerprint
// one-way delay. One endpoint, GET /sendlog, newline-delimited JSON: a hello line, then one
// line per frame sent. With a bearer token set, a request without it gets 401 and nothing else.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClipIdentity } from "../../core/delay/fingerprint.ts";
import { RunError, SendLogPeerError } from "../../core/errors.ts";
import type { Codec } from "../../core/types.ts";

interface Hello {
  v: 1;
  codec: Codec;
  ticks: number;
  fingerprints: string[];
  keyframes: boolean[];
  /** simulcast: the layers the table holds (docs/definitions.md#simulcast-layers); absent: 1 */
  layers?: number;
}

interface Entry {
  k: number;
  /**
   * the clip index sent as k (docs/definitions.md#keyframes-on-request); absent from an older
   * publisher: k mod N
   */
  i?: number;
  /** the publisher's wall clock at the send, Unix ns, as a decimal string */
  t0: string;
  /**
   * its source (docs/definitions.md#send-instant): the kernel's transmit stamp or the hand-over
   * instant; absent from an older publisher
   */
  s?: "kernel" | "handover";
}

export interface SendLogServer {
  port: number;
  /**
   * one frame sent: k, the publisher's wall clock at its first packet (Unix ns), its clip index,
   * and whether that instant is the kernel's transmit stamp
   */
  record(k: number, t0WallNs: number, i: number, kernel?: boolean): void;
  close(): Promise<void>;
}

const REPLAY_LOOPS = 4;

export async function serveSendLog(
  host: string,
  port: number,
  identity: ClipIdentity,
  bearer: string | undefined,
): Promise<SendLogServer> {
  const hello: Hello = {
    v: 1,
    codec: identity.codec,
    ticks: identity.ticks,
    fingerprints: identity.fingerprints.map((f) => f.toString(16)),
    keyframes: identity.keyframes.slice(),
    ...(identity.layers !== undefined ? { layers: identity.layers } : {}),
  };
  const recent: string[] = [];
  const max = REPLAY_LOOPS * identity.fingerprints.length;
  const followers = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    req.resume();
    if (bearer && req.headers.authorization !== `Bearer ${bearer}`) {
      res.writeHead(401).end();
      return;
    }
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/sendlog") {
      res.writeHead(404).end();
      return;
    }
    // every entry is one small write that must not wait for Nagle's algorithm
    req.socket.setNoDelay(true);
    res.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
    res.write(`${JSON.stringify(hello)}\n`);
    for (const line of recent) res.write(line);
    followers.add(res);
    res.on("close", () => followers.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(new RunError("cannot listen for the send log", { cause: err })));
    server.listen(port, host === "" ? undefined : host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    record(k, t0WallNs, i, kernel) {
      const t0 = BigInt(Math.round(t0WallNs)).toString();
      const s = kernel === undefined ? {} : { s: kernel ? ("kernel" as const) : ("handover" as const) };
      const line = `${JSON.stringify({ k, i, t0, ...s } satisfies Entry)}\n`;
      recent.push(line);
      if (recent.length > max) recent.shift();
      for (const f of followers) f.write(line);
    },
    async close() {
      for (const f of followers) f.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Follows a publisher's send log until `signal` aborts. Resolves with the clip identity once the
 * hello arrived; every entry then goes to `onEntry` (k, publisher wall ns, clip index, whether the
 * kernel stamped it: undefined from an older publisher). `answerMs` bounds
 * the wait for the answer and its hello only: the stream itself lasts as long as the run.
 */
export async function followSendLog(
  host: string,
  port: number,
  bearer: string | undefined,
  signal: AbortSignal,
  onEntry: (k: number, t0WallNs: number, i: number, kernel?: boolean) => void,
  answerMs = 10_000,
): Promise<ClipIdentity> {
  const headers: Record<string, string> = {};
  if (bearer) headers["authorization"] = `Bearer ${bearer}`;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  // a timeout signal handed to fetch would also cut the body off once it fired, mid-run
  const answer = new AbortController();
  const timer = setTimeout(() => answer.abort(), answerMs);
  timer.unref();
  let res: Response;
  try {
    res = await fetch(`http://${hostPart}:${port}/sendlog`, {
      headers,
      signal: AbortSignal.any([signal, answer.signal]),
    });
  } catch (err) {
    clearTimeout(timer);
    throw new SendLogPeerError("the send-log peer did not answer", { cause: err });
  }
  if (res.status !== 200 || !res.body) {
    clearTimeout(timer);
    throw new SendLogPeerError(`the send-log peer answered HTTP ${res.status}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let identity: ClipIdentity | null = null;
  const lines = async function* (): AsyncGenerator<string> {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        yield buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf("\n");
      }
      if (buffered.length > 1 << 20) throw new SendLogPeerError("the send-log peer sent an oversized line");
    }
  };
  const it = lines();
  let first: IteratorResult<string>;
  try {
    first = await it.next();
  } catch (err) {
    throw new SendLogPeerError("the send-log peer did not send its hello", { cause: err });
  } finally {
    clearTimeout(timer);
  }
  if (first.done) throw new SendLogPeerError("the send-log peer closed before its hello");
  identity = parseHello(first.value);
  const n = identity.fingerprints.length;
  void (async () => {
    try {
      for await (const line of it) {
        const e = JSON.parse(line) as Partial<Entry>;
        if (typeof e.k === "number" && Number.isSafeInteger(e.k) && e.k >= 0 && typeof e.t0 === "string") {
          const i = e.i === undefined ? e.k % n : e.i;
          const kernel = e.s === "kernel" ? true : e.s === "handover" ? false : undefined;
          if (Number.isInteger(i) && i >= 0 && i < n) onEntry(e.k, Number(e.t0), i, kernel);
        }
      }
    } catch {
      // the channel ended (abort or peer gone): the log simply stops growing
    }
  })();
  signal.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
  return identity;
}

function parseHello(line: string): ClipIdentity {
  let h: Partial<Hello>;
  try {
    h = JSON.parse(line) as Partial<Hello>;
  } catch (err) {
    throw new SendLogPeerError("the send-log peer's hello is not JSON", { cause: err });
  }
  const ok =
    h.v === 1 &&
    (h.codec === "vp8" || h.codec === "h264") &&
    typeof h.ticks === "number" &&
    h.ticks > 0 &&
    Array.isArray(h.fingerprints) &&
    Array.isArray(h.keyframes) &&
    h.fingerprints.length === h.keyframes.length &&
    h.fingerprints.length > 0 &&
    h.fingerprints.every((f) => typeof f === "string" && /^[0-9a-f]{1,16}$/.test(f)) &&
    (h.layers === undefined ||
      (Number.isInteger(h.layers) && h.layers >= 1 && h.fingerprints.length % h.layers === 0));
  if (!ok) throw new SendLogPeerError("the send-log peer's hello is malformed");
  const hh = h as Hello;
  return {
    codec: hh.codec,
    ticks: hh.ticks,
    fingerprints: hh.fingerprints.map((f) => BigInt(`0x${f}`)),
    keyframes: hh.keyframes.map((k) => k === true),
    ...(hh.layers !== undefined ? { layers: hh.layers } : {}),
  };
}
