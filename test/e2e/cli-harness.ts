// Running the real CLI as a child process (bin/whipbench.js on the pinned Node this test runs
// on), asynchronously, so a relay living in the test process keeps serving while the child runs.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../bin/whipbench.js", import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** wall time from spawn to exit */
  ms: number;
}

export interface CliOptions {
  /** extra environment (merged over a copy of this process's) */
  env?: Record<string, string>;
  cwd?: string;
  /** kill the child (SIGKILL) after this long; the test then fails on the code */
  timeoutMs?: number;
  /** run the child as this user and group (a test that needs a non-root process) */
  uid?: number;
  gid?: number;
}

/** A started CLI: the child, its output so far, and a promise of its end. */
export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
  /** resolves once stderr contains `text` (rejects when the child exits first) */
  waitForStderr(text: string | RegExp): Promise<void>;
}

export function startCli(args: string[], o: CliOptions = {}): CliRun {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: o.cwd ?? process.cwd(),
    env: { ...process.env, ...o.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(o.uid !== undefined ? { uid: o.uid } : {}),
    ...(o.gid !== undefined ? { gid: o.gid } : {}),
  });
  let out = "";
  let err = "";
  const waiters: { match: string | RegExp; resolve: () => void; reject: (e: Error) => void }[] = [];
  const seen = (m: string | RegExp): boolean => (typeof m === "string" ? err.includes(m) : m.test(err));
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
    for (const w of waiters.splice(0)) {
      if (seen(w.match)) w.resolve();
      else waiters.push(w);
    }
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0)) w.reject(new Error(`the CLI exited before ${String(w.match)}`));
      resolve({ code, signal, stdout: out, stderr: err, ms: performance.now() - t0 });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStderr(match) {
      if (seen(match)) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ match, resolve, reject }));
    },
  };
}

export function cli(args: string[], o: CliOptions = {}): Promise<CliResult> {
  return startCli(args, o).done;
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `whipbench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Files in a directory, sorted; [] when it does not exist. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * The report files in `dir`: exactly `<stem>.json` and `<stem>.md` (docs/definitions.md#report-files), plus `<stem>.html`
 * where the HTML report is written (our addition, on by default, off with --no-html), and
 * nothing else. Parsed and raw.
 */
export function readReportPair(dir: string): {
  jsonName: string;
  mdName: string;
  htmlName: string | null;
  jsonText: string;
  markdown: string;
  html: string;
  report: Record<string, unknown>;
} {
  const files = listDir(dir);
  const jsonName = files.find((f) => f.endsWith(".json"));
  if (!jsonName) throw new Error(`no report JSON in ${files}`);
  const stem = jsonName.slice(0, -".json".length);
  const mdName = `${stem}.md`;
  const htmlName = files.includes(`${stem}.html`) ? `${stem}.html` : null;
  const want = [jsonName, mdName, ...(htmlName ? [htmlName] : [])].sort();
  if (files.join("\n") !== want.join("\n")) throw new Error(`want ${want}, got ${files}`);
  const jsonText = readFileSync(join(dir, jsonName), "utf8");
  return {
    jsonName,
    mdName,
    htmlName,
    jsonText,
    markdown: readFileSync(join(dir, mdName), "utf8"),
    html: htmlName ? readFileSync(join(dir, htmlName), "utf8") : "",
    report: JSON.parse(jsonText) as Record<string, unknown>,
  };
}

/** The `wrote <path>` lines docs/definitions.md#console-output prints for the files of `readReportPair`, in their order. */
export function wroteLines(dir: string, pair: ReturnType<typeof readReportPair>): string[] {
  return [pair.jsonName, pair.mdName, ...(pair.htmlName ? [pair.htmlName] : [])].map(
    (f) => `wrote ${join(dir, f)}`,
  );
}

/** A TCP port on 127.0.0.1 free a moment ago (for a server a child process starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a !== null ? a.port : 0));
    });
  });
}

/**
 * Every key and string value of a parsed JSON document, one a line: where an address could
 * leak. Not the serialised JSON, whose numbers follow a colon too (`"packets":41234` is not
 * port 41234).
 */
export function jsonStrings(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
    }
  };
  walk(value);
  return out.join("\n");
}
