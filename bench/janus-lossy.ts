// libwebrtc beside whipbench through a real Janus over an impaired link: the recipe's stack in a
// network namespace of its own (test/janus/netns-janus.ts), the viewers in a second one, the
// user-space impairer (test/netem) on every UDP datagram Janus sends toward them. libwebrtc
// viewers (bench/libwebrtc-viewer.ts, the WHEP front's 406 counter-offer) and one `whipbench
// view` watch the same stream at the same time; the table lays their frozen seconds, frames shown
// and NACK messages side by side. Root, gcc and libnetfilter-queue-dev; the stack installed.
//   node bench/janus-lossy.ts [--loss 0.02] [--delay-ms 0 --jitter-ms 0] [--seconds 20]
//        [--libwebrtc 3] [--viewers 6] [--seed 39] [--impair-after 0] [--keep] (keep the report)
//        [--drop-dtls 1,3-5] (also drop those DTLS datagrams, from 1, of each viewer's: test/netem)
//        [--drop-ccs N] (also drop the first N of each viewer's that hold a ChangeCipherSpec)
//        [--pcap FILE] (tshark writes what reaches the viewers' namespace to FILE, for reading after)
//        [--janus-log FILE] (Janus's log, level 6: what it did with each NACKed number)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Report } from "../src/core/report/types.ts";
import { byMessages, type HandleNacks, nacksInLog } from "../test/janus/nack-log.ts";
import { retransmittedInLog, startNetnsJanus } from "../test/janus/netns-janus.ts";
import { buildImpairer, type Impairer, startImpairer } from "../test/netem/impairer.ts";
import type { LibwebrtcStats } from "./libwebrtc.ts";

const VIEWER = fileURLToPath(new URL("./libwebrtc-viewer.ts", import.meta.url));
const { values } = parseArgs({
  options: {
    loss: { type: "string", default: "0.02" },
    "delay-ms": { type: "string", default: "0" },
    "jitter-ms": { type: "string", default: "0" },
    seconds: { type: "string", default: "20" },
    libwebrtc: { type: "string", default: "3" },
    viewers: { type: "string", default: "6" },
    seed: { type: "string", default: "39" },
    "impair-after": { type: "string", default: "0" },
    keep: { type: "boolean" },
    "drop-dtls": { type: "string", default: "" },
    "drop-ccs": { type: "string", default: "0" },
    pcap: { type: "string" },
    "janus-log": { type: "string" },
  },
});
const seconds = Number(values.seconds);
const nLib = Number(values.libwebrtc);
const nOurs = Number(values.viewers);
const impairAfterS = Number(values["impair-after"]);
const profile = {
  loss: Number(values.loss),
  delayMs: Number(values["delay-ms"]),
  jitterMs: Number(values["jitter-ms"]),
  seed: Number(values.seed),
  dropDtls: values["drop-dtls"],
  dropCcs: Number(values["drop-ccs"]),
};

function libwebrtcIn(ns: string, whep: string): Promise<LibwebrtcStats> {
  const child = spawn("ip", ["netns", "exec", ns, process.execPath, VIEWER, whep, String(seconds)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 40) * 1000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as LibwebrtcStats);
      } catch {
        resolve({ ok: false, error: `exit ${code}: ${out.slice(-200)}` });
      }
    }),
  );
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const range = (xs: number[], d = 0): string =>
  xs.length === 0
    ? "–"
    : `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)} (mean ${mean(xs).toFixed(d === 0 ? 1 : d)})`;

async function main(): Promise<void> {
  const binary = buildImpairer();
  const out = mkdtempSync(join(tmpdir(), "whipbench-janus-bench-"));
  const stack = startNetnsJanus();
  let impairer: Impairer | null = null;
  let capture: ChildProcess | null = null;
  try {
    if (values.pcap !== undefined) {
      const args = [
        "netns",
        "exec",
        stack.viewers,
        "tshark",
        "-q",
        "-i",
        "any",
        "-f",
        "udp",
        "-w",
        values.pcap,
      ];
      capture = spawn("ip", args, { stdio: "ignore" });
      await new Promise((r) => setTimeout(r, 1500));
    }
    stack.admin({ janus: "set_log_level", level: 6 }); // each NACKed number's fate (test/janus/nack-log.ts)
    const publisher = stack.whipbench(stack.server, [
      "publish",
      "--whip",
      "http://127.0.0.1:7080/whip/endpoint/vp8",
    ]);
    await new Promise((r) => setTimeout(r, 2000));
    const rule = { device: stack.serverDevice, destination: stack.viewerIp, queue: 39 };
    const impair = async () => {
      impairer = await startImpairer(binary.path, stack.server, rule, profile, seconds + 60);
    };
    if (impairAfterS === 0) await impair();
    const whep = `http://${stack.serverIp}:7090/whep/endpoint/vp8`;
    // Ours first (a process that takes seconds to start on a busy machine), libwebrtc once Janus has
    // our handles. With --impair-after 0 the link is impaired from before the first POST (joins
    // included) until both have stopped, and both hold `seconds`. With --impair-after S it is
    // impaired from S s after libwebrtc's start until libwebrtc's end, and ours hold 3 s longer:
    // both watch the whole impaired stretch, so freezes and NACKs are counted over the same packets.
    const later = impairAfterS > 0;
    const view = stack.whipbench(stack.viewers, [
      "view",
      "--whep",
      whep,
      "-n",
      String(nOurs),
      "--duration",
      `${later ? seconds + 3 : seconds}s`,
      "--out",
      out,
      "--no-html",
    ]);
    const viewDone = new Promise<number | null>((r) => view.once("close", (c) => r(c)));
    for (let i = 0; i < 300 && stack.streamingHandles().length < nOurs; i++)
      await new Promise((r) => setTimeout(r, 200));
    const lib = Promise.all(Array.from({ length: nLib }, () => libwebrtcIn(stack.viewers, whep)));
    if (later) setTimeout(() => void impair(), impairAfterS * 1000);
    const counted = (later ? lib : Promise.all([lib, viewDone])).then(() =>
      (impairer as Impairer | null)?.stop(),
    );
    let queueMs: number[] = [];
    setTimeout(
      () => {
        queueMs = stack.streamingHandles().map((h) => {
          const m = JSON.stringify((h.webrtc as { media?: object } | undefined)?.media ?? {});
          return Number(m.match(/"nack-queue-ms":(\d+)/)?.[1] ?? -1);
        });
      },
      (seconds / 2) * 1000,
    );
    const [libStats, code] = await Promise.all([lib, viewDone]);
    const counts = await counted;
    publisher.kill("SIGTERM");
    const file = readdirSync(out).find((f) => f.endsWith(".json"));
    if (file === undefined) throw new Error(`no report (view exited ${code}): ${view.text().slice(-500)}`);
    const report = JSON.parse(readFileSync(join(out, file), "utf8")) as Report;
    const ours = (report.viewers ?? []).filter((v) => v.joined);
    const libOk = libStats.filter((s) => s.ok);
    const drops = `${profile.dropDtls !== "" ? `, DTLS datagrams ${profile.dropDtls} dropped` : ""}${
      profile.dropCcs > 0 ? `, first ${profile.dropCcs} ChangeCipherSpec datagrams dropped` : ""
    }`;
    const cfg = `loss ${profile.loss * 100} %, delay ${profile.delayMs} ms ± ${profile.jitterMs} ms, seed ${profile.seed}${drops}`;
    console.log(`Janus 1.1.2 → viewers: ${cfg}; ${seconds} s; impairer ${JSON.stringify(counts)}`);
    console.log(
      `Janus retransmitted (its log, every 5 s per handle): ${retransmittedInLog(stack.log())}; nack-queue-ms ${queueMs.join(", ")}`,
    );
    console.log(
      `libwebrtc joined ${libOk.length} of ${nLib}${libStats
        .filter((s) => !s.ok)
        .map((s) => `; ${s.error}`)
        .join("")}`,
    );
    console.log(`whipbench: ${report.aggregate.verdict}`);
    for (const v of report.viewers ?? [])
      if (!v.joined)
        console.log(
          `  viewer ${v.id}: ${v.errorKind} ${v.error ?? ""}; frames shown ${v.render?.framesShown ?? "–"}`,
        );
    console.log("| per viewer | libwebrtc M106 | whipbench |\n|---|---|---|");
    const row = (name: string, a: number[], b: number[], d = 0) =>
      console.log(`| ${name} | ${range(a, d)} | ${range(b, d)} |`);
    row(
      "freezes",
      libOk.map((s) => s.freezeCount ?? 0),
      ours.map((v) => v.render?.freezes ?? 0),
    );
    row(
      "frozen s",
      libOk.map((s) => s.totalFreezesDuration ?? 0),
      ours.map((v) => (v.render?.frozenMs ?? 0) / 1000),
      2,
    );
    row(
      "frames shown",
      libOk.map((s) => s.framesDecoded ?? 0),
      ours.map((v) => v.render?.framesShown ?? 0),
    );
    row(
      "NACK messages",
      libOk.map((s) => s.nackCount ?? 0),
      ours.map((v) => v.nacksSent),
    );
    row(
      "packets lost (after repair)",
      libOk.map((s) => s.packetsLost ?? 0),
      ours.map((v) => v.rtp.lost),
    );
    // Janus's log per handle, told apart by NACK messages (each receiver's count is Janus's)
    if (values["janus-log"] !== undefined) writeFileSync(values["janus-log"], stack.log());
    const janus = nacksInLog(stack.log());
    // ours told apart by their NACK message counts (Janus counts the same messages); libwebrtc's
    // getStats count can lag what Janus received, so its handles are the rest
    const ourH = byMessages(
      janus,
      ours.map((v) => v.nacksSent),
    );
    const libH = janus.filter((h) => !ourH.includes(h));
    const janusRow = (name: string, x: (h: HandleNacks) => number) =>
      row(
        name,
        libH.flatMap((h) => (h ? [x(h)] : [])),
        ourH.flatMap((h) => (h ? [x(h)] : [])),
      );
    janusRow("NACK messages before Janus kept a packet (its log)", (h) => h.beforeBuffer);
    // why: Janus keeps packets from the first report whose round trip reads > 0 ms (−1: none did)
    janusRow("NACK messages before its first round trip > 0 ms (its log)", (h) => h.beforeRtt);
    janusRow("first round trip Janus computed, ms (its log)", (h) => h.firstRttMs);
    janusRow("reports whose round trip read 0 ms (its log)", (h) => h.rttZero);
    janusRow("numbers Janus resent (its log)", (h) => h.resent.size);
    janusRow("numbers asked for, not held (its log)", (h) => h.notHeld.size);
    row(
      "measured s",
      libOk.map(() => seconds),
      ours.map((v) => (v.render?.measuredMs ?? 0) / 1000),
      1,
    );
    const libS = (x: (s: LibwebrtcStats) => number) => libOk.map((s) => x(s) / seconds);
    const ourS = (x: (v: (typeof ours)[number]) => number) =>
      ours.map((v) => x(v) / ((v.render?.measuredMs ?? 1) / 1000));
    row(
      "frozen share %",
      libS((s) => (s.totalFreezesDuration ?? 0) * 100),
      ourS((v) => (v.render?.frozenMs ?? 0) / 10),
      1,
    );
    row(
      "frames shown per s",
      libS((s) => s.framesDecoded ?? 0),
      ourS((v) => v.render?.framesShown ?? 0),
      1,
    );
    row(
      "NACK messages per s",
      libS((s) => s.nackCount ?? 0),
      ourS((v) => v.nacksSent),
      2,
    );
  } finally {
    capture?.kill("SIGINT");
    await (impairer as Impairer | null)?.stop();
    await stack.close();
    if (values.keep === undefined) rmSync(out, { recursive: true, force: true });
    else console.log(`whipbench's report: ${out}`);
    rmSync(binary.dir, { recursive: true, force: true });
  }
}

await main();
