// The recipe's Janus stack (bench/servers/janus) in a network namespace of the test's own, the
// viewers in a second one, joined by a veth pair: Janus gathers the veth address as an ordinary
// host candidate (no loopback shim), and the impairer (test/netem) can shape the server → viewer
// direction between them. Its run folder is temporary and its ports are the namespace's own, so it
// never meets a stack on the host's 127.0.0.1. Everything made here is removed by close().
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN } from "../e2e/cli-harness.ts";
import { deleteNamespaces, ip } from "../e2e/netns/namespaces.ts";
import { type Impairer, type ImpairProfile, startImpairer } from "../netem/impairer.ts";

const RECIPE = fileURLToPath(new URL("../../bench/servers/janus", import.meta.url));
const ADMIN = "http://127.0.0.1:17088/admin";
const SECRET = { admin_secret: "janusoverlord", transaction: "t" };

export interface NetnsJanus {
  server: string;
  viewers: string;
  serverIp: string;
  viewerIp: string;
  /** the veth device on the server's side */
  serverDevice: string;
  runDir: string;
  /** `whipbench ARGS` in namespace `ns`; stdout and stderr kept */
  whipbench(ns: string, args: string[]): ChildProcess & { text: () => string };
  /** one Admin API request inside the server's namespace */
  admin(body: object, path?: string): Record<string, unknown>;
  /** the `handle_info` of every Streaming subscriber handle now */
  streamingHandles(): Record<string, unknown>[];
  /** the Janus log so far */
  log(): string;
  close(): Promise<void>;
}

function inNs(ns: string, cmd: string[], env: NodeJS.ProcessEnv = {}): { code: number; out: string } {
  const r = spawnSync("ip", ["netns", "exec", ns, ...cmd], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return { code: r.status ?? 1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Makes both namespaces and starts the stack in the server's; throws (after cleaning up) on failure. */
export function startNetnsJanus(): NetnsJanus {
  const tag = `wbj${process.pid % 100000}`;
  const server = `${tag}s`;
  const viewers = `${tag}v`;
  const octet = 1 + (process.pid % 250);
  const serverIp = `10.239.${octet}.1`;
  const viewerIp = `10.239.${octet}.2`;
  const serverDevice = `${tag}a`;
  const runDir = mkdtempSync(join(tmpdir(), "whipbench-janus-netns-"));
  const env = { JANUS_RUN_DIR: runDir, JANUS_IP: serverIp, JANUS_ICE_IFACE: serverDevice };
  const children: ChildProcess[] = [];
  const removeAll = (): void => {
    inNs(server, ["bash", join(RECIPE, "stop.sh")], env);
    deleteNamespaces([server, viewers]);
    rmSync(runDir, { recursive: true, force: true });
  };
  try {
    deleteNamespaces([server, viewers]);
    ip("netns", "add", server);
    ip("netns", "add", viewers);
    ip("link", "add", serverDevice, "type", "veth", "peer", "name", `${tag}b`);
    ip("link", "set", serverDevice, "netns", server);
    ip("link", "set", `${tag}b`, "netns", viewers);
    for (const [ns, dev, addr] of [
      [server, serverDevice, serverIp],
      [viewers, `${tag}b`, viewerIp],
    ] as const) {
      ip("-n", ns, "addr", "add", `${addr}/24`, "dev", dev);
      ip("-n", ns, "link", "set", dev, "up");
      ip("-n", ns, "link", "set", "lo", "up");
    }
    const started = inNs(server, ["bash", join(RECIPE, "start.sh")], env);
    if (started.code !== 0) throw new Error(`start.sh in ${server} failed:\n${started.out}`);
  } catch (err) {
    removeAll();
    throw err;
  }
  const admin = (body: object, path = ""): Record<string, unknown> => {
    const r = inNs(
      server,
      ["curl", "-s", "--max-time", "5", "-H", "content-type: application/json"].concat([
        "-d",
        JSON.stringify({ ...body, ...SECRET }),
        `${ADMIN}${path}`,
      ]),
    );
    return JSON.parse(r.out) as Record<string, unknown>;
  };
  return {
    server,
    viewers,
    serverIp,
    viewerIp,
    serverDevice,
    runDir,
    whipbench(ns, args) {
      const child = spawn("ip", ["netns", "exec", ns, process.execPath, BIN, ...args], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let text = "";
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        text += d;
      });
      child.stderr?.setEncoding("utf8").on("data", (d: string) => {
        text += d;
      });
      return Object.assign(child, { text: () => text });
    },
    admin,
    streamingHandles() {
      const out: Record<string, unknown>[] = [];
      for (const s of (admin({ janus: "list_sessions" }).sessions as number[] | undefined) ?? []) {
        for (const h of (admin({ janus: "list_handles" }, `/${s}`).handles as number[] | undefined) ?? []) {
          const info = admin({ janus: "handle_info" }, `/${s}/${h}`).info as
            | Record<string, unknown>
            | undefined;
          if (info?.plugin === "janus.plugin.streaming") out.push(info);
        }
      }
      return out;
    },
    log() {
      return readFileSync(join(runDir, "janus.log"), "utf8");
    },
    async close() {
      for (const c of children) {
        if (c.exitCode === null && c.signalCode === null) {
          c.kill("SIGTERM");
          await new Promise((r) => c.once("close", r));
        }
      }
      removeAll();
    },
  };
}

/** The packets Janus says it retransmitted on NACKs (its log at level 5 and up, every 5 s per handle). */
export function retransmittedInLog(log: string): number {
  let n = 0;
  for (const m of log.matchAll(/Retransmitted (\d+) packets due to NACK/g)) n += Number(m[1]);
  return n;
}

/** Runs `execFileSync` in a namespace (for the few one-off commands a test needs). */
export function nsExec(ns: string, cmd: string[]): string {
  return execFileSync("ip", ["netns", "exec", ns, ...cmd], { encoding: "utf8" });
}

/** Why the recipe's stack cannot run here (janus or what install.sh puts in place is missing), or null. */
export function stackMissing(): string | null {
  if (spawnSync("janus", ["--version"]).error) return "janus is not on PATH";
  for (const p of [
    ".local/simple-whip-server/usr/share/simple-whip-server/src/server.js",
    "whip-front/node_modules/express",
    "whep-front/node_modules/janus-whep-server",
  ]) {
    if (!existsSync(fileURLToPath(new URL(`../../bench/servers/janus/${p}`, import.meta.url))))
      return `bench/servers/janus/${p} is missing (install.sh)`;
  }
  return null;
}

/** `whipbench publish` of VP8 into the stack's WHIP endpoint, given 2 s; throws where it stopped. */
export async function publishVp8(stack: NetnsJanus): Promise<ChildProcess & { text: () => string }> {
  const publisher = stack.whipbench(stack.server, [
    "publish",
    "--whip",
    "http://127.0.0.1:7080/whip/endpoint/vp8",
  ]);
  await new Promise((r) => setTimeout(r, 2000));
  if (publisher.exitCode !== null) throw new Error(`the publisher stopped: ${publisher.text()}`);
  return publisher;
}

/** The impairer (test/netem) on every UDP datagram Janus sends toward the viewers' namespace. */
export function impairTowardViewers(
  stack: NetnsJanus,
  binary: string,
  profile: ImpairProfile,
  durationS: number,
): Promise<Impairer> {
  const rule = { device: stack.serverDevice, destination: stack.viewerIp, queue: 39 };
  return startImpairer(binary, stack.server, rule, profile, durationS);
}
