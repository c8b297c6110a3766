// `/metrics` over HTTP while a run lasts (docs/definitions.md#prometheus-metrics): only that path,
// GET or HEAD, the text format 0.0.4 content type. A bare port (`9464` or `:9464`) binds 127.0.0.1:
// nothing is exposed beyond this machine unless the address names an interface. Closing waits up to
// 2 s for scrapes in flight.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { UsageError } from "../../core/errors.ts";
import type { RunMetrics } from "./metrics.ts";

export const CLOSE_GRACE_MS = 2000;

export interface MetricsServer {
  /** http://host:port/metrics */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Host and port of a `--metrics` / scenario `metrics` address: `PORT`, `:PORT`, `HOST:PORT` or
 * `[V6]:PORT`; port 0 takes any free port (the log line names it). Throws UsageError.
 */
export function metricsAddress(addr: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]*\]|[^:[\]]*):)?(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--metrics: want PORT or HOST:PORT, got ${JSON.stringify(addr)}`);
  }
  const host = (m[1] ?? "").replace(/^\[|\]$/g, "");
  return { host: host === "" ? "127.0.0.1" : host, port };
}

export async function serveMetrics(addr: string, metrics: RunMetrics): Promise<MetricsServer> {
  const { host, port } = metricsAddress(addr);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found: try /metrics\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { "Content-Type": metrics.contentType });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      () => {
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const shown = a.address.includes(":") ? `[${a.address}]` : a.address;
  return {
    url: `http://${shown}:${a.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
