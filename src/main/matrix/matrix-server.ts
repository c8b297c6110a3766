// A matrix server's lifecycle: its start command (a shell command in its own process group, its
// output in a log file; it may stay in the foreground or daemonise and exit 0), the wait until it
// is healthy (its health command succeeds, or by default its WHEP port accepts a TCP connection),
// and its stop (the stop command, then the start command's group ends). Every command runs in
// the matrix file's directory, so a relative path in it means the same from wherever whipbench
// is started. A start that fails says what the command printed last, redacted, with the project's
// own files named relative to the checkout (a recipe's "run …/install.sh first" stays readable).
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { connect } from "node:net";
import { MatrixServerError } from "../../core/errors.ts";
import type { MatrixServer } from "../../core/matrix/parse.ts";
import { type OwnFileNamer, redactText } from "../../core/redact.ts";
import { ownFileNamer } from "../process/own-files.ts";

function sh(command: string, logFd: number | "ignore", cwd: string): ChildProcess {
  return spawn("sh", ["-c", command], { cwd, detached: true, stdio: ["ignore", logFd, logFd] });
}

/** The most of a start command's output a failure reason quotes. */
const TAIL_LINES = 4;
const TAIL_CHARS = 300;

/**
 * The last lines a log file got after `from` (bytes), redacted (paths that `ownFile` names kept
 * as its name), as one line; "" when there are none.
 */
export function outputTail(
  logPath: string,
  from: number,
  secrets: readonly string[],
  ownFile?: OwnFileNamer,
): string {
  let text: string;
  try {
    const size = statSync(logPath).size;
    const start = Math.max(from, size - 8192);
    const buf = Buffer.alloc(Math.max(0, size - start));
    const fd = openSync(logPath, "r");
    try {
      readSync(fd, buf, 0, buf.length, start);
    } finally {
      closeSync(fd);
    }
    text = buf.toString("utf8");
  } catch {
    return "";
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const tail = lines
    .slice(-TAIL_LINES)
    .map((l) => redactText(l, secrets, ownFile))
    .join(" | ");
  return tail.length > TAIL_CHARS ? `…${tail.slice(-TAIL_CHARS)}` : tail;
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

export class ServerProcess {
  private child: ChildProcess | null = null;
  private readonly s: MatrixServer;
  private readonly cwd: string;
  private readonly secrets: readonly string[];

  /** `cwd`: where the commands run (the matrix file's directory); `secrets`: texts no reason may quote. */
  constructor(s: MatrixServer, cwd: string, secrets: readonly string[] = []) {
    this.s = s;
    this.cwd = cwd;
    this.secrets = secrets;
  }

  private async healthy(): Promise<boolean> {
    if (this.s.health === undefined) return portOpen(this.s.whep);
    return (await exitOf(sh(this.s.health, "ignore", this.cwd))) === 0;
  }

  /** Starts the server (when it has a start command) and waits until it is healthy; throws why not. */
  async start(logPath: string, timeoutS: number): Promise<void> {
    let from = 0;
    if (this.s.start !== undefined) {
      const fd = openSync(logPath, "a", 0o600);
      try {
        from = statSync(logPath).size;
        this.child = sh(this.s.start, fd, this.cwd);
      } finally {
        closeSync(fd);
      }
    }
    const failed = (what: string): MatrixServerError => {
      const tail =
        this.s.start === undefined ? "" : outputTail(logPath, from, this.secrets, ownFileNamer(this.cwd));
      const said = tail === "" ? "it printed nothing" : `its output ended: ${tail}`;
      return new MatrixServerError(`${what} (commands run in the matrix file's directory); ${said}`);
    };
    const deadline = Date.now() + timeoutS * 1000;
    for (;;) {
      const child = this.child;
      // a start command may daemonise and exit 0; any other end before health is a failure
      if (child !== null && child.signalCode !== null) {
        throw failed(`the start command was ended by ${child.signalCode} before the server was healthy`);
      }
      if (child !== null && child.exitCode !== null && child.exitCode !== 0) {
        throw failed(`the start command exited with ${child.exitCode} before the server was healthy`);
      }
      if (await this.healthy()) return;
      if (Date.now() > deadline) throw failed(`not healthy within ${timeoutS} s`);
      await sleep(250);
    }
  }

  /** Runs the stop command (when given), then ends the start command's process group. */
  async stop(): Promise<void> {
    if (this.s.stop !== undefined) await exitOf(sh(this.s.stop, "ignore", this.cwd));
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
