// One reading of a same-host server process from /proc (Linux): its CPU time (utime + stime of
// /proc/PID/stat) and resident set size (VmRSS of /proc/PID/status), for the server watch.
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { errnoCode } from "../../core/errors.ts";

export interface ProcReading {
  /** user + system CPU time so far, in seconds */
  cpuSeconds: number;
  rssBytes: number;
  /** the process's start time in clock ticks since boot: a different value means a reused PID */
  startTicks: number;
}

let clockTicks: number | null = null;

/**
 * The kernel's clock tick (USER_HZ), the unit of utime and stime. `getconf CLK_TCK` asks the C
 * library; where that cannot run, 100, which is what Linux exports to user space on every
 * mainstream architecture (x86, arm64, riscv, ppc, s390) whatever the kernel's internal HZ.
 */
export function clockTicksPerSecond(): number {
  if (clockTicks === null) {
    try {
      const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 2000 }).trim());
      clockTicks = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * Parses /proc/PID/stat: the command name may hold spaces and parentheses, so fields count from its
 * last ")".
 */
export function parseProcStat(text: string): { cpuTicks: number; startTicks: number } | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  // after the name: field 3 (state) is index 0, so field n is index n - 3
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  const start = Number(f[19]);
  if (![utime, stime, start].every(Number.isFinite)) return null;
  return { cpuTicks: utime + stime, startTicks: start };
}

/** VmRSS of /proc/PID/status in bytes (the kernel writes kB); null without the line (a zombie). */
export function parseVmRss(text: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/** The process now, or the reason it cannot be read ("not found" when it does not exist). */
export async function readProc(pid: number): Promise<ProcReading | { missing: string }> {
  let stat: string;
  let status: string;
  try {
    [stat, status] = await Promise.all([
      readFile(`/proc/${pid}/stat`, "utf8"),
      readFile(`/proc/${pid}/status`, "utf8"),
    ]);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ESRCH") return { missing: "not found" };
    return { missing: `unreadable (${code ?? "error"})` };
  }
  const s = parseProcStat(stat);
  const rss = parseVmRss(status);
  if (s === null) return { missing: "unreadable (/proc stat format)" };
  if (rss === null) return { missing: "has no resident memory (exited, or a kernel thread)" };
  return { cpuSeconds: s.cpuTicks / clockTicksPerSecond(), rssBytes: rss, startTicks: s.startTicks };
}
