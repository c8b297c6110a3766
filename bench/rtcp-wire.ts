// bench:rtcp-wire — the receiver reports each receiver sends, on the wire: the built-in relay losing
// 1 packet in N on every leg (NACK repairs it), libwebrtc M106 viewers and a `whipbench view` (and a
// second checkout's, --baseline) watching the same stream (bench/libwebrtc.ts calibrate), and
// tcpdump on lo meanwhile. Per receiver: its RR-led SRTCP datagrams, whether each report carries an
// SDES, how many went alone and how many led a NACK or PLI, and the octets after the report
// (bench/rtcp-capture.ts). Which process a port is is read with `ss` while they run.
// Flags: --seconds S (20), --libwebrtc N (2), --viewers N (3), --lose-every N (50), --baseline BIN,
// --keep FILE (keep the capture). Needs tcpdump and the right to capture (root).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { calibrate, libwebrtcMissing } from "./libwebrtc.ts";
import { rrDatagrams, tally, udpPayloads } from "./rtcp-capture.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    libwebrtc: { type: "string", default: "2" },
    viewers: { type: "string", default: "3" },
    "lose-every": { type: "string", default: "50" },
    baseline: { type: "string" },
    keep: { type: "string" },
  },
});
const seconds = Number(values.seconds);

const missing = libwebrtcMissing();
if (missing !== null) {
  console.error(`bench:rtcp-wire: ${missing}`);
  process.exit(1);
}

/** Each UDP port on 127.0.0.1 a process holds now: which receiver it is (its command line). */
function portOwners(into: Map<number, string>): void {
  let out = "";
  try {
    out = execFileSync("ss", ["-uapnH"], { encoding: "utf8" });
  } catch {
    return;
  }
  for (const line of out.split("\n")) {
    // the local address: 127.0.0.1, or any address (0.0.0.0, *, [::]) on that port
    const port = /^\S+\s+\d+\s+\d+\s+\S*:(\d+)\s/.exec(line)?.[1];
    const pid = /pid=(\d+)/.exec(line)?.[1];
    if (port === undefined || pid === undefined || into.has(Number(port))) continue;
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue;
    }
    const kind =
      Number(pid) === process.pid
        ? "relay"
        : cmd.includes("libwebrtc-viewer")
          ? "libwebrtc"
          : values.baseline !== undefined && cmd.includes(values.baseline)
            ? "baseline"
            : cmd.includes(" view ")
              ? "ours"
              : null;
    if (kind !== null) into.set(Number(port), `${kind} (pid ${pid})`);
  }
}

const dir = mkdtempSync(join(tmpdir(), "whipbench-rtcp-wire-"));
const pcap = values.keep ?? join(dir, "lo.pcap");
const dump = spawn("tcpdump", ["-i", "lo", "-U", "-s", "2048", "-w", pcap, "udp"], {
  stdio: ["ignore", "ignore", "pipe"],
});
let dumpErr = "";
dump.stderr?.setEncoding("utf8").on("data", (d: string) => {
  dumpErr += d;
});
const dumpExit = new Promise<void>((resolve) => dump.on("close", () => resolve()));
await new Promise((r) => setTimeout(r, 1000));
const owners = new Map<number, string>();
const sampling = setInterval(() => portOwners(owners), 1000);
try {
  const lose = Number(values["lose-every"]);
  const c = await calibrate(
    { name: `lose 1 in ${lose}`, relay: { loseEvery: lose } },
    seconds,
    Number(values.libwebrtc),
    Number(values.viewers),
    values.baseline,
  );
  console.log(`## ${c.pattern}, ${c.seconds} s; view exit ${c.viewCode}`);
} finally {
  clearInterval(sampling);
  if (dump.pid !== undefined) process.kill(dump.pid, "SIGINT");
  await dumpExit;
}
if (!dumpErr.includes("listening")) console.error(`tcpdump: ${dumpErr.trim()}`);

console.log(
  "| receiver | port / SSRC | RR-led datagrams | SDES | alone | led a NACK or PLI | octets after RR (+SDES): count |",
);
console.log("|---|---|---:|---|---:|---:|---|");
const rows = tally(rrDatagrams(udpPayloads(pcap)));
rows.sort((a, b) => (owners.get(a.port) ?? "").localeCompare(owners.get(b.port) ?? "") || a.port - b.port);
let others = 0;
for (const t of rows) {
  const who = owners.get(t.port);
  // another process's on lo (the machine is shared): not this run's
  if (who === undefined) {
    others++;
    continue;
  }
  const id = `${t.port} / ${t.ssrc.toString(16)}`;
  if (!("datagrams" in t)) {
    console.log(`| ${who} | ${id} | trailer not told | | | | |`);
    continue;
  }
  const sizes = [...t.sizes].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}: ${n}`);
  console.log(
    `| ${who} | ${id} | ${t.datagrams} | ${t.sdes ? "yes" : "no"} | ${t.alone} | ${t.compound} | ${sizes.join(", ")} |`,
  );
}
console.log(
  `\n(${others} RTCP senders on lo were other processes'; the relay's row is its report to the publisher)`,
);
if (values.keep === undefined) rmSync(dir, { recursive: true, force: true });
