// The tests' user-space link impairer (nfq-impair.c beside this file): compiled here with gcc
// against Debian's libnetfilter-queue, run at real-time priority (`chrt -f 50`: on a busy
// 2-core machine a delay it releases late is a delay the test did not ask for) inside a network
// namespace of the test's own, fed by one iptables NFQUEUE rule on that namespace's OUTPUT chain
// for one device and destination. `--queue-bypass` on the rule: when the impairer is gone, the
// packets pass. stop() ends it (it also ends itself after its duration), removes the rule and
// returns its counts. Why C and not koffi from Node: a verdict loop with its own real-time
// thread, untouched by a JavaScript event loop or its garbage collector.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./nfq-impair.c", import.meta.url));
/** The mark on the impairer's own duplicates, which the rule lets pass. */
const MARK = 0x39;

export interface ImpairProfile {
  /** independent loss, a fraction (0.02 = 2 %) */
  loss?: number;
  /** Gilbert-Elliott: chance per packet of good → bad and of bad → good (bad loses every packet) */
  burstEnter?: number;
  burstLeave?: number;
  delayMs?: number;
  /** normal jitter's σ around the delay, ms; reorders packets closer together than it */
  jitterMs?: number;
  /** duplication, a fraction */
  dup?: number;
  seed?: number;
  /** which DTLS datagrams to each destination address and port are dropped: "1,3,5-40", from 1 */
  dropDtls?: string;
  /** how many of the DTLS datagrams to each destination that hold a ChangeCipherSpec are dropped */
  dropCcs?: number;
}

export interface ImpairCounts {
  seen: number;
  dropped: number;
  delayed: number;
  duplicated: number;
  maxHeld: number;
  bypassed: number;
  /** of `dropped`: by the dropDtls and dropCcs rules */
  droppedDtls: number;
}

/** Why the impairer cannot be built or run here, or null. */
export function impairerMissing(): string | null {
  if (process.getuid?.() !== 0) return "not root (network namespaces and iptables need it)";
  if (spawnSync("gcc", ["--version"]).error) return "gcc is not installed";
  if (!existsSync("/usr/include/libnetfilter_queue/libnetfilter_queue.h"))
    return "libnetfilter-queue-dev is not installed";
  if (spawnSync("iptables", ["--version"]).error) return "iptables is not installed";
  if (spawnSync("chrt", ["--version"]).error) return "chrt (util-linux) is not installed";
  return null;
}

/** Compiles the impairer into a temporary folder (the caller removes `dir`). */
export function buildImpairer(): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "whipbench-nfq-"));
  const path = join(dir, "nfq-impair");
  execFileSync("gcc", ["-O2", "-Wall", "-o", path, SOURCE, "-lnetfilter_queue", "-lm"], { stdio: "pipe" });
  return { path, dir };
}

export interface Impairer {
  /** ends the impairer and removes its rule; its counts, or null when it printed none */
  stop(): Promise<ImpairCounts | null>;
}

/**
 * Starts the impairer in namespace `ns` on queue `queue` for packets that leave by `device` toward
 * `destination` (UDP only: STUN, DTLS, SRTP, SRTCP alike), for at most `durationS`.
 */
export async function startImpairer(
  binary: string,
  ns: string,
  rule: { device: string; destination: string; queue: number },
  profile: ImpairProfile,
  durationS: number,
): Promise<Impairer> {
  const args = ["--queue", String(rule.queue), "--duration-s", String(durationS)];
  args.push("--seed", String(profile.seed ?? 1), "--mark", String(MARK));
  const opt = (flag: string, v: number | undefined) => v !== undefined && args.push(flag, String(v));
  opt("--loss", profile.loss);
  opt("--burst-enter", profile.burstEnter);
  opt("--burst-leave", profile.burstLeave);
  opt("--delay-ms", profile.delayMs);
  opt("--jitter-ms", profile.jitterMs);
  opt("--dup", profile.dup);
  opt("--drop-ccs", profile.dropCcs);
  if (profile.dropDtls !== undefined && profile.dropDtls !== "") args.push("--drop-dtls", profile.dropDtls);
  const child: ChildProcess = spawn("ip", ["netns", "exec", ns, "chrt", "-f", "50", binary, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  for (let i = 0; i < 100 && !out.includes("ready") && child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 50));
  if (!out.includes("ready")) {
    child.kill("SIGKILL");
    throw new Error(`nfq-impair did not start: ${err}`);
  }
  const spec = ["-o", rule.device, "-p", "udp", "-d", rule.destination, "-m", "mark", "!", "--mark"];
  spec.push(String(MARK), "-j", "NFQUEUE", "--queue-num", String(rule.queue), "--queue-bypass");
  const iptables = (op: "-A" | "-D") =>
    execFileSync("ip", ["netns", "exec", ns, "iptables", "-t", "mangle", op, "OUTPUT", ...spec], {
      stdio: "pipe",
    });
  iptables("-A");
  let ruleOn = true;
  return {
    async stop() {
      if (ruleOn) {
        ruleOn = false;
        try {
          iptables("-D");
        } catch {
          // the namespace is already gone, and its rules with it
        }
      }
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      const line = out.trim().split("\n").pop() ?? "";
      try {
        return JSON.parse(line) as ImpairCounts;
      } catch {
        return null;
      }
    },
  };
}
