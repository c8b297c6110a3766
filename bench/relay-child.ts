// The built-in relay as a child process of a benchmark: started with this Node, on 127.0.0.1,
// and stopped by its own PID only.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** Starts `whipbench relay` on 127.0.0.1:port with `args` besides; its startup lines are in `lines`. */
export async function startRelay(
  port: number,
  args: string[] = [],
  lines: string[] = [],
): Promise<ChildProcess> {
  const bin = fileURLToPath(new URL("../bin/whipbench.js", import.meta.url));
  const child = spawn(process.execPath, [bin, "relay", "--listen", `127.0.0.1:${port}`, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  child.stderr?.on("data", (d: Buffer) => {
    text += d.toString();
  });
  for (let i = 0; i < 100 && !text.includes("relay listening"); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (!text.includes("relay listening")) {
    child.kill("SIGTERM");
    throw new Error("the relay did not start");
  }
  // the send path's line follows the listening one
  for (let i = 0; i < 10 && !text.includes("send path"); i++) await new Promise((r) => setTimeout(r, 50));
  lines.push(...text.split("\n").filter((l) => l !== ""));
  return child;
}

export async function stopRelay(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}
