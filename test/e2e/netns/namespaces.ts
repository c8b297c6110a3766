// Network namespaces of a test's own: made with `ip`, removed after, and whipbench processes
// started inside them (test/e2e/netns-split.test.ts, test/e2e/netns-agents.test.ts).
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { BIN } from "../cli-harness.ts";

export function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "ignore" });
}

export function deleteNamespaces(names: readonly string[]): void {
  for (const ns of names) {
    try {
      execFileSync("ip", ["netns", "del", ns], { stdio: "ignore" });
    } catch {
      // not there
    }
  }
}

export interface NsProcess {
  child: ChildProcess;
  err: () => string;
  code: Promise<number | null>;
}

/** `whipbench ARGS` inside namespace `ns`, its stderr kept; it joins `children` for the cleanup. */
export function inNamespace(
  children: ChildProcess[],
  ns: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): NsProcess {
  const child = spawn("ip", ["netns", "exec", ns, process.execPath, BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdout?.resume();
  const code = once(child, "exit").then(([c]) => c as number | null);
  return { child, err: () => err, code };
}

/** Kills what is still running, then removes the namespaces. */
export async function cleanUp(children: ChildProcess[], names: readonly string[]): Promise<void> {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGTERM");
      await once(c, "exit");
    }
  }
  deleteNamespaces(names);
}

export async function waitFor(text: () => string, needle: string, ms: number): Promise<void> {
  for (let i = 0; i < ms / 50 && !text().includes(needle); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(text().includes(needle), `waited for "${needle}", got: ${text()}`);
}
