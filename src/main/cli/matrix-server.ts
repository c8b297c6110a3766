// A matrix server's lifecycle: its start command (a shell command in its own process group, its
// output in a log file; it may stay in the foreground or daemonise and exit 0), the wait until it
// is healthy (its health command succeeds, or by default its WHEP port accepts a TCP connection),
// and its stop (the stop command, then the start command's group ends).
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { connect } from "node:net";
import type { MatrixServer } from "../../core/matrix/parse.ts";

function sh(command: string, logFd: number | "ignore"): ChildProcess {
  return spawn("sh", ["-c", command], { detached: true, stdio: ["ignore", logFd, logFd] });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function portOpen(url: string): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
    s.setTimeout(1000, () => done(false));
  });
}

async function healthy(s: MatrixServer): Promise<boolean> {
  if (s.health === undefined) return portOpen(s.whep);
  return (await exitOf(sh(s.health, "ignore"))) === 0;
}

export class ServerProcess {
  private child: ChildProcess | null = null;
  private readonly s: MatrixServer;

  constructor(s: MatrixServer) {
    this.s = s;
  }

  /** Starts the server (when it has a start command) and waits until it is healthy; throws why not. */
  async start(logPath: string, timeoutS: number): Promise<void> {
    if (this.s.start !== undefined) {
      const fd = openSync(logPath, "a", 0o600);
      try {
        this.child = sh(this.s.start, fd);
      } finally {
        closeSync(fd);
      }
    }
    const deadline = Date.now() + timeoutS * 1000;
    for (;;) {
      const child = this.child;
      // a start command may daemonise and exit 0; any other end before health is a failure
      if (child !== null && child.signalCode !== null) {
        throw new Error(`the start command was ended by ${child.signalCode} before the server was healthy`);
      }
      if (child !== null && child.exitCode !== null && child.exitCode !== 0) {
        throw new Error(`the start command exited with ${child.exitCode} before the server was healthy`);
      }
      if (await healthy(this.s)) return;
      if (Date.now() > deadline) throw new Error(`not healthy within ${timeoutS} s`);
      await sleep(250);
    }
  }

  /** Runs the stop command (when given), then ends the start command's process group. */
  async stop(): Promise<void> {
    if (this.s.stop !== undefined) await exitOf(sh(this.s.stop, "ignore"));
    const child = this.child;
    this.child = null;
    if (child === null || child.pid === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const ended = exitOf(child);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const timedOut = await Promise.race([ended.then(() => false), sleep(5000).then(() => true)]);
    if (timedOut) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await ended;
    }
  }
}
