// Hostile input on the open HTTP ports (issue 7, docs/reliability.md "Hostile input on open
// ports"): the built-in relay's WHIP/WHEP port and the /metrics port, on real sockets. Bad
// methods, paths, content types and bodies are refused with the right status and a body that
// echoes nothing of the request; oversized bodies and headers are refused; a client that never
// finishes its request blocks nobody, and closing /metrics does not wait on it past its grace.
// (The UDP clock responder: test/e2e/clock-exchange.test.ts.)
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { RunMetrics } from "../../src/main/observe/metrics.ts";
import { CLOSE_GRACE_MS, type MetricsServer, serveMetrics } from "../../src/main/observe/metrics-server.ts";
import { MAX_BODY_BYTES } from "../../src/main/relay/http.ts";
import { Relay } from "../../src/main/relay/relay.ts";

const PROBE = "PROBEPATHSECRET";

/** One raw HTTP/1.1 exchange (so that nothing normalises the request line): status, headers, body. */
function raw(
  port: number,
  request: string | Buffer,
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    sock.on("data", (d: Buffer) => chunks.push(d));
    sock.on("error", reject);
    sock.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const i = text.indexOf("\r\n\r\n");
      const head = i < 0 ? text : text.slice(0, i);
      const body = text.slice(i + 4);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: /\r\ntransfer-encoding: chunked/i.test(head) ? dechunk(body) : body,
      });
    });
    sock.end(request);
  });
}

function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const eol = text.indexOf("\r\n", at);
    const size = eol < 0 ? 0 : Number.parseInt(text.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

function req(method: string, target: string, headers: string[] = [], body = ""): string {
  const h = ["Host: 127.0.0.1", "Connection: close", ...headers];
  if (body !== "" || method === "POST") h.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${method} ${target} HTTP/1.1\r\n${h.join("\r\n")}\r\n\r\n${body}`;
}

/** A client that sends half a request line and then nothing. */
function stall(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1", () => {
      sock.write("POST /s/wh");
      resolve(sock);
    });
    sock.on("error", () => {});
  });
}

describe("the built-in relay's HTTP port", () => {
  let relay: Relay;
  let port = 0;
  before(async () => {
    relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, token: "T" });
    port = Number(new URL(await relay.listen()).port);
  });
  after(() => relay.close());
  const auth = "Authorization: Bearer T";
  const sdp = "Content-Type: application/sdp";

  test("no or a wrong bearer: 401 before anything is read", async () => {
    for (const h of [[], ["Authorization: Bearer X"], ["Authorization: Basic VDpU"]]) {
      const r = await raw(port, req("POST", "/s/whep", [...h, sdp], "v=0\r\n"));
      assert.equal(r.status, 401, h.join());
    }
  });

  test("a body that is not SDP: 400; the wrong content type: 415; an oversized body: 413", async () => {
    for (const body of ["hello", "<html>", "\u0000\u00ff", " v=0", "V=0"]) {
      for (const path of ["/s/whep", "/s/whip"]) {
        const r = await raw(port, req("POST", path, [auth, sdp], body));
        assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
        assert.equal(r.body, "the body is not SDP");
      }
    }
    for (const type of [[], ["Content-Type: text/plain"], ["Content-Type: application/json"]]) {
      const r = await raw(port, req("POST", "/s/whep", [auth, ...type], "v=0\r\n"));
      assert.equal(r.status, 415, type.join());
    }
    for (const size of [MAX_BODY_BYTES + 1, 1 << 20]) {
      const body = `v=0\r\n${"a=x\r\n".repeat(Math.ceil(size / 5))}`;
      const r = await raw(port, req("POST", "/s/whip", [auth, sdp], body));
      assert.equal(r.status, 413, `${body.length} bytes`);
      assert.equal(r.body, "body too large");
    }
    // SDP-looking garbage within the limit: the offer is refused, the relay carries on
    const garbage = `v=0\r\n${"x=garbage\r\n".repeat(100)}`;
    const r = await raw(port, req("POST", "/g/whip", [auth, sdp], garbage));
    assert.equal(r.status, 400);
    assert.equal(r.body, "the offer was refused");
  });

  test("bad paths and methods: 404/405 with a body that echoes nothing of the request", async () => {
    const cases: [string, string, number][] = [
      ["GET", `/${PROBE}/whep`, 404],
      ["PUT", `/${PROBE}/whip`, 404],
      ["POST", `/${PROBE}`, 404],
      ["POST", `/a/b/${PROBE}/whep`, 404],
      ["GET", `/../../etc/${PROBE}`, 404],
      ["DELETE", `/session/${PROBE}`, 404],
      ["PATCH", `/session/${PROBE}`, 404],
      ["OPTIONS", "*", 404],
      ["GET", `http://${PROBE}.example/s/whep`, 404],
    ];
    for (const [method, target, status] of cases) {
      const r = await raw(port, req(method, target, [auth]));
      assert.equal(r.status, status, `${method} ${target}`);
      assert.ok(!r.body.includes(PROBE) && !r.head.includes(PROBE), `${method} ${target} echoed`);
    }
  });

  test("oversized headers: 431; a stalled client blocks nobody", async () => {
    const big = await raw(port, req("POST", "/s/whep", [auth, sdp, `X-Pad: ${"p".repeat(64 * 1024)}`]));
    assert.equal(big.status, 431);
    const stalled = await stall(port);
    try {
      const r = await raw(port, req("POST", "/s/whep", [auth, sdp], "v=0\r\n"));
      assert.equal(r.status, 404, "answered while another client stalls");
      assert.equal(r.body, "no stream is being published");
    } finally {
      stalled.destroy();
    }
  });
});

describe("the /metrics port", () => {
  let server: MetricsServer;
  let port = 0;
  before(async () => {
    server = await serveMetrics("127.0.0.1:0", new RunMetrics({ viewersTarget: 3 }));
    port = Number(new URL(server.url).port);
  });

  test("GET /metrics: the text format with the whipbench series and nothing else", async () => {
    for (const target of ["/metrics", `/metrics?${PROBE}=1`]) {
      const r = await raw(port, req("GET", target));
      assert.equal(r.status, 200, target);
      assert.match(r.head, /\r\ncontent-type: text\/plain; version=0\.0\.4; charset=utf-8/i);
      assert.ok(!r.body.includes(PROBE));
      const lines = r.body.trimEnd().split("\n");
      assert.ok(lines.length > 20);
      for (const l of lines) {
        assert.match(l, /^(# (HELP|TYPE) whipbench_\w+ .*|whipbench_\w+(\{[^}]*\})? \S+|)$/, l);
      }
      assert.match(r.body, /^whipbench_viewers_target 3$/m);
    }
    const head = await raw(port, req("HEAD", "/metrics"));
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
  });

  test("other methods: 405 with Allow; other paths: 404 echoing nothing", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]) {
      const r = await raw(port, req(method, "/metrics", [], method === "POST" ? `${PROBE}` : ""));
      assert.equal(r.status, 405, method);
      assert.match(r.head, /\r\nallow: GET, HEAD/i);
      assert.equal(r.body, "");
    }
    for (const target of [
      "/",
      `/${PROBE}`,
      "/metrics/",
      "/METRICS",
      "//metrics",
      "/metrics/../metrics",
      "/metrics%00",
      `/metrics;${PROBE}`,
      `http://${PROBE}.example/metrics`,
      "*",
    ]) {
      const r = await raw(port, req("GET", target));
      assert.equal(r.status, 404, target);
      assert.equal(r.body, "not found: try /metrics\n");
      assert.ok(!r.head.includes(PROBE));
    }
    const big = await raw(port, req("GET", "/metrics", [`X-Pad: ${"p".repeat(64 * 1024)}`]));
    assert.equal(big.status, 431);
  });

  test("a stalled client blocks no scrape, and closing waits for it no longer than the grace", async () => {
    const stalled = await stall(port);
    const r = await raw(port, req("GET", "/metrics"));
    assert.equal(r.status, 200);
    const t0 = performance.now();
    await server.close();
    const ms = performance.now() - t0;
    assert.ok(ms < CLOSE_GRACE_MS + 1000, `closed in ${Math.round(ms)} ms`);
    const cut = await Promise.race([
      new Promise<boolean>((resolve) => stalled.once("close", () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(stalled.destroyed), 1000)),
    ]);
    assert.ok(cut, "the stalled client was cut off");
    stalled.destroy();
  });
});
