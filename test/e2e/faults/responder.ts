// A misbehaving WHIP/WHEP server for the fault tests: a small node:http front that forwards to a
// real relay (the built-in one) and, per request, misbehaves in one of the ways a real server
// can. WHEP POSTs are numbered in arrival order: the n-th takes the n-th fault of the `whep`
// list (past its end: forwarded unchanged). Every WHIP POST takes the `whip` fault. Sessions
// (DELETE, PATCH) are always forwarded. Nothing here mocks the client: the viewers and the
// publisher are the real ones, on real sockets.
import { createSocket } from "node:dgram";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  /** forward unchanged */
  | { kind: "proxy" }
  /** answer this status with a short text body */
  | { kind: "status"; status: number }
  /** forward, but drop the Location header of the answer */
  | { kind: "no-location" }
  /** 200 with an HTML page */
  | { kind: "not-sdp" }
  /** 201 with the relay's answer whose video section is turned into an audio one */
  | { kind: "no-video" }
  /** 201 with the relay's answer offering only AV1 */
  | { kind: "no-common-codec" }
  /** 201 with the relay's answer with garbage lines mixed in */
  | { kind: "garbage-lines" }
  /** read the offer, never answer (the socket stays open until the client gives up) */
  | { kind: "never-answer" }
  /** answer after this long (then forward) */
  | { kind: "delay"; ms: number }
  /** 200, application/sdp, a body that starts as SDP and never ends (written while the client reads) */
  | { kind: "huge-body" }
  /** destroy the connection without an answer */
  | { kind: "reset" }
  /** offer and answer with every candidate pointing to a UDP port nobody listens on (both ways) */
  | { kind: "dead-candidates" }
  /** the relay's answer with a DTLS fingerprint that is not the relay's certificate's */
  | { kind: "bad-fingerprint" };

export interface FaultServerOptions {
  /** base URL of the relay requests are forwarded to */
  target: string;
  /** the n-th WHEP POST (0-based) gets whep[n]; past the end: proxy */
  whep?: Fault[];
  /** every WHIP POST gets this; absent: proxy */
  whip?: Fault;
}

export interface FaultStats {
  whepPosts: number;
  whipPosts: number;
  deletes: number;
  /** bytes written of huge bodies before the client closed the connection */
  hugeBytesWritten: number;
  /** huge-body connections the client closed */
  hugeClosedByClient: number;
  /** faults applied, in POST order (WHEP only) */
  applied: string[];
}

const HUGE_CHUNK = Buffer.alloc(64 * 1024, "a=x-filler:0123456789abcdef\r\n");
/** a huge body stops here if the client never stops reading (it must stop at 1 MiB) */
const HUGE_LIMIT = 64 * 1024 * 1024;

export class FaultServer {
  readonly stats: FaultStats = {
    whepPosts: 0,
    whipPosts: 0,
    deletes: 0,
    hugeBytesWritten: 0,
    hugeClosedByClient: 0,
    applied: [],
  };
  private readonly o: FaultServerOptions;
  private server: Server | null = null;
  private deadPort = 0;

  constructor(o: FaultServerOptions) {
    this.o = o;
  }

  async listen(): Promise<string> {
    this.deadPort = await unusedUdpPort();
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    let fault: Fault = { kind: "proxy" };
    if (req.method === "POST" && path.endsWith("/whep")) {
      fault = this.o.whep?.[this.stats.whepPosts] ?? { kind: "proxy" };
      this.stats.whepPosts++;
      this.stats.applied.push(fault.kind);
    } else if (req.method === "POST" && path.endsWith("/whip")) {
      fault = this.o.whip ?? { kind: "proxy" };
      this.stats.whipPosts++;
    } else if (req.method === "DELETE") {
      this.stats.deletes++;
    }
    let body = await readAll(req);
    if (fault.kind === "dead-candidates") {
      // both ways: the relay must not reach the viewer either (it would learn a peer-reflexive candidate)
      body = Buffer.from(deadCandidates(body.toString("utf8"), this.deadPort));
    }
    switch (fault.kind) {
      case "status":
        res.writeHead(fault.status, { "content-type": "text/plain" }).end(`status ${fault.status}\n`);
        return;
      case "not-sdp":
        res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><h1>Welcome</h1>\n");
        return;
      case "never-answer":
        return; // the connection stays open until the client aborts or the server closes
      case "reset":
        req.socket.destroy();
        return;
      case "huge-body":
        this.huge(res);
        return;
      case "delay":
        await new Promise((r) => setTimeout(r, fault.ms));
        break;
      default:
        break;
    }
    const up = await this.forward(req, body);
    const headers: Record<string, string> = {};
    for (const k of ["content-type", "location"]) {
      const v = up.headers.get(k);
      if (v !== null) headers[k] = v;
    }
    let text = Buffer.from(await up.arrayBuffer()).toString("utf8");
    if (up.status === 201 || up.status === 200) {
      if (fault.kind === "no-location") delete headers["location"];
      else if (fault.kind === "no-video") text = text.replace(/^m=video /m, "m=audio ");
      else if (fault.kind === "no-common-codec") text = onlyAv1(text);
      else if (fault.kind === "garbage-lines") text = withGarbage(text);
      else if (fault.kind === "dead-candidates") text = deadCandidates(text, this.deadPort);
      else if (fault.kind === "bad-fingerprint") text = badFingerprint(text);
    }
    res.writeHead(up.status, headers).end(text);
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<Response> {
    const headers: Record<string, string> = {};
    for (const h of ["authorization", "content-type", "accept"]) {
      const v = req.headers[h];
      if (typeof v === "string") headers[h] = v;
    }
    const init: RequestInit = { method: req.method ?? "GET", headers };
    if (body.length > 0) init.body = body;
    return fetch(`${this.o.target}${req.url ?? "/"}`, init);
  }

  /** Writes an endless SDP-looking body as fast as the client reads it, until it hangs up. */
  private huge(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "application/sdp" });
    res.write("v=0\r\n");
    let closed = false;
    res.on("close", () => {
      closed = true;
      if (this.stats.hugeBytesWritten < HUGE_LIMIT) this.stats.hugeClosedByClient++;
    });
    const pump = () => {
      while (!closed && this.stats.hugeBytesWritten < HUGE_LIMIT) {
        this.stats.hugeBytesWritten += HUGE_CHUNK.length;
        if (!res.write(HUGE_CHUNK)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** A UDP port that was free a moment ago (bound, then released). */
function unusedUdpPort(): Promise<number> {
  const s = createSocket("udp4");
  return new Promise((resolve) =>
    s.bind(0, "127.0.0.1", () => {
      const port = s.address().port;
      s.close(() => resolve(port));
    }),
  );
}

/** Every video codec of the answer renamed AV1, its fmtp lines dropped. */
export function onlyAv1(sdp: string): string {
  return sdp
    .split("\r\n")
    .filter((l) => !l.startsWith("a=fmtp:"))
    .map((l) => l.replace(/^(a=rtpmap:\d+ )(VP8|H264|VP9|rtx)\/90000/i, "$1AV1/90000"))
    .join("\r\n");
}

/** Lines no SDP parser expects, inside the session and the media section. */
export function withGarbage(sdp: string): string {
  const junk = [
    "this is not an SDP line",
    "a=rtpmap:notanumber VP8/90000",
    "a=candidate:garbage",
    "m=",
    "c=IN IP4",
    "a=fmtp:96 \u0000\u00ff\u0001",
    `x=${"A".repeat(10_000)}`,
    "a=ssrc:-1 cname:\u202e",
  ];
  const lines = sdp.split("\r\n");
  const m = lines.findIndex((l) => l.startsWith("m="));
  const at = m < 0 ? 1 : m + 1;
  return [...lines.slice(0, 2), ...junk, ...lines.slice(2, at), ...junk, ...lines.slice(at)].join("\r\n");
}

/** Every candidate's port replaced by `port` (nobody listens there). */
export function deadCandidates(sdp: string, port: number): string {
  return sdp.replace(
    /^(a=candidate:\S+ \d+ \S+ \d+ \S+ )(\d+)( typ)/gm,
    (_m, a: string, _p: string, b: string) => `${a}${port}${b}`,
  );
}

/** The fingerprint's hash bytes inverted: a certificate the DTLS handshake will not present. */
export function badFingerprint(sdp: string): string {
  return sdp.replace(/^(a=fingerprint:\S+ )([0-9A-Fa-f:]+)/gm, (_m, a: string, hex: string) => {
    const flipped = hex.replace(/[0-9A-Fa-f]{2}/g, (b) =>
      (255 - Number.parseInt(b, 16)).toString(16).padStart(2, "0").toUpperCase(),
    );
    return `${a}${flipped}`;
  });
}
