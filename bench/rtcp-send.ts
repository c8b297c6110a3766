// What one RTCP message a viewer sends costs its thread (docs/definitions.md#receive-paths), on a
// real werift pair connected over 127.0.0.1 (bench/peer-pair.ts), both ways in one run:
//   werift  RTCDtlsTransport.sendRtcp (node:crypto SRTCP, three async functions to socket.send)
//   native  SRTCP through OpenSSL on a context keyed once, socket.send at once (net/werift/rtcp-wire.ts)
// and, to name where the cost goes, the SRTCP protect alone each way and a bare socket.send of the
// same bytes (the floor: dgram plus the kernel's loopback send) to three receivers, since on
// loopback the kernel delivers the datagram inside the sender's sendto and bills it to the sender:
//   reader    a process waiting in epoll that reads and drops them (as the relay is): delivery,
//             enqueue and waking its thread
//   no reader a socket bound by a process whose one thread is blocked elsewhere (Atomics.wait),
//             so nothing waits on it: delivery without a wake-up (once its buffer is full, the
//             kernel drops there, before the enqueue)
//   no socket a port nobody has bound: the kernel answers with ICMP port unreachable (rate-limited)
// The server peer is closed before the timing and the pair's remote address pointed at the reader
// (this script starts the processes and stops them by their PIDs), so nothing in this thread
// receives them. CPU time of this thread (process.threadCpuUsage: user + system) per message,
// median of the rounds, the variants interleaved round by round. Messages: a transport feedback (32 bytes)
// and an RR+SDES compound (52 bytes), alternately. Three ways of sending them, a table each:
//   hot   20 messages back to back per turn of the event loop (setImmediate): the loop's floor
//   cold  one message per wake-up of a 1 ms timer, the thread asleep between them, as one viewer's
//         own timer sent its feedback: caches, branch predictors and the JIT's feedback go cold,
//         and the wake-up's own cost (the timer, epoll) is in the figure (alone: the last variant)
//   pass  5 messages back to back per wake-up of a 1 ms timer: a pass of the thread's shared
//         feedback tick (src/workers/timers.ts) at 25 viewers, 20 messages/s each, on a 10 ms grid
// The variants marked "gathered" run each wake-up's messages as the tick's pass does: held
// (src/net/write-gather.ts) and written in one sendmmsg at its end, against the same bytes through
// dgram's socket.send (which looks the IP literal up with dns.lookup and sends one at a time).
//
// Last, receiver reports on the thread's shared tick: 25 viewers' periodic reports (each every
// 0.5–1.5 s, src/workers/receive/receiver-reports.ts) sent as the viewers' are (native protect,
// gathered in the pass), their instants on the tick's 10 ms grid (as before) against the report
// grid (REPORT_GRID_MS), windows alternating: passes (here each a timer wake-up: nothing else
// wakes this thread) and reports a second, and this thread's CPU per report.
//
//   node bench/rtcp-send.ts [--messages 4000] [--cold-messages 400] [--rounds 7] [--report-seconds 4]
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { setTimeout as sleep, setImmediate as turn } from "node:timers/promises";
import { SrtcpSession } from "werift";
import { monoNs } from "../src/core/clock/clock.ts";
import { SRTP_AEAD_AES_128_GCM } from "../src/core/srtp/kdf.ts";
import { openssl } from "../src/net/srtp/openssl.ts";
import { OpensslSrtcpSender } from "../src/net/srtp/protect-rtcp.ts";
import { nativeRtcpSender } from "../src/net/werift/rtcp-wire.ts";
import { dtlsOf, rtcpSender } from "../src/net/werift/srtp-start.ts";
import { beginGather, endGather, gather } from "../src/net/write-gather.ts";
import { REPORT_GRID_MS, ReceiverReports } from "../src/workers/receive/receiver-reports.ts";
import { ReceptionStats } from "../src/workers/receive/reception.ts";
import { serializeRr, serializeSdes } from "../src/workers/receive/rtcp-out.ts";
import { FEEDBACK_TICK_MS, SharedTick } from "../src/workers/timers.ts";
import { median } from "./median.ts";
import { connectedPair } from "./peer-pair.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1 || v > 1_000_000) {
    process.stderr.write(`--${name}: a whole number from 1 to 1000000\n`);
    process.exit(2);
  }
  return v;
}

const MESSAGES = arg("messages", 4000);
const COLD_MESSAGES = arg("cold-messages", 400);
const ROUNDS = arg("rounds", 7);
const REPORT_SECONDS = arg("report-seconds", 4);
const REPORT_VIEWERS = 25;
/** the modes: messages per wake-up, whether the thread sleeps 1 ms between wake-ups, messages per round */
const MODES = [
  { name: "hot", perWake: 20, sleeps: false, messages: MESSAGES },
  { name: "cold", perWake: 1, sleeps: true, messages: COLD_MESSAGES },
  { name: "pass", perWake: 5, sleeps: true, messages: COLD_MESSAGES },
] as const;
type Mode = (typeof MODES)[number];
/** a receiving process: binds 127.0.0.1, prints its port, then reads and drops every datagram or,
 * `deaf`, blocks its one thread for good (a pipe's write is synchronous here, so the port is out) */
function receiverSource(deaf: boolean): string {
  const then = deaf ? "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0)" : "0";
  return `const s=require("node:dgram").createSocket("udp4");s.on("message",()=>{});
s.bind(0,"127.0.0.1",()=>{process.stdout.write(s.address().port+"\\n");${then}});`;
}

const native = openssl();
if (!native.ok) {
  process.stdout.write(`unavailable, because OpenSSL is not reachable here: ${native.reason}\n`);
  process.exit(0);
}
const ssrc = 0x1234abcd;
const feedback = Buffer.concat([Buffer.from([0x8f, 205, 0, 7]), Buffer.alloc(28, 0x5a)]);
feedback.writeUInt32BE(ssrc, 4);
const block = {
  ssrc: 0x55667788,
  fractionLost: 0,
  cumulativeLost: 0,
  extHighest: 9000,
  jitter: 30,
  lsr: 0,
  dlsr: 0,
};
const head = Buffer.concat([serializeRr(ssrc, block), serializeSdes(ssrc, "abcdefghijklmnop")]);
const messages = [feedback, head];

/**
 * µs of this thread's CPU per message for `send`, `mode.perWake` messages per wake-up of the loop:
 * user + system, and system alone (the kernel's share: the send's syscall, loopback delivery in it)
 */
async function cpuPerMessage(
  send: (m: Buffer) => unknown,
  mode: Mode,
  gathered: boolean,
): Promise<[number, number]> {
  const t0 = process.threadCpuUsage();
  for (let i = 0; i < mode.messages; i++) {
    if (gathered && i % mode.perWake === 0) beginGather();
    send(messages[i & 1]!);
    if (i % mode.perWake === mode.perWake - 1) {
      if (gathered) endGather();
      await (mode.sleeps ? sleep(1) : turn());
    }
  }
  endGather();
  await turn();
  const d = process.threadCpuUsage(t0);
  return [(d.user + d.system) / mode.messages, d.system / mode.messages];
}

const { server, viewer } = await connectedPair();
const dtls = dtlsOf(viewer.getTransceivers()[0]!);
if (dtls === undefined) throw new Error("the viewer has no DTLS transport");
const nativeSend = nativeRtcpSender(dtls);
if (typeof nativeSend === "string") throw new Error(`native RTCP send unavailable: ${nativeSend}`);
const weriftSend = rtcpSender(dtls);
const pair = (
  dtls as unknown as {
    iceTransport: {
      connection: {
        nominated: {
          remoteAddr: [string, number];
          protocol: { transport: { socket: import("node:dgram").Socket } };
        };
      };
    };
  }
).iceTransport.connection.nominated;
const socket = pair.protocol.transport.socket;
await server.close();
const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const c of children) if (!c.killed) c.kill();
});
/** starts a receiving process (receiverSource) and answers its port */
async function receiver(deaf: boolean): Promise<number> {
  const child = spawn(process.execPath, ["-e", receiverSource(deaf)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once("exit", () => reject(new Error("a receiving process ended before it bound")));
  });
}
/** a port nobody has bound now: one the kernel gave a socket, closed again */
async function unboundPort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", resolve));
  const p = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return p;
}
// live receivers in other processes, so the kernel's loopback delivery (charged to the sender) is real
const port = await receiver(false);
const deafPort = await receiver(true);
const nobodyPort = await unboundPort();
const host = "127.0.0.1";
// werift's CandidatePair has remoteAddr as a getter: this pair alone now answers with the reader's
Object.defineProperty(pair, "remoteAddr", { value: [host, port] });

const key = Buffer.alloc(16, 7);
const salt = Buffer.alloc(12, 9);
const weriftSrtcp = new SrtcpSession({
  keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
  profile: SRTP_AEAD_AES_128_GCM,
});
const ours = new OpensslSrtcpSender(SRTP_AEAD_AES_128_GCM, key, salt);
let index = 0;

const variants: [string, (m: Buffer) => unknown, boolean?][] = [
  ["werift sendRtcp (protect + send)", weriftSend],
  ["native protect + socket.send", nativeSend],
  ["native protect + gathered (one sendmmsg per wake-up)", nativeSend, true],
  ["werift SRTCP protect alone (GCM)", (m) => weriftSrtcp.encrypt(m)],
  [
    "native SRTCP protect alone (GCM)",
    (m) => {
      index = (index + 1) & 0x7fffffff;
      return ours.protect(m, index);
    },
  ],
  ["bare socket.send → reader in epoll (floor)", (m) => socket.send(m, port, host)],
  ["bare gathered → reader in epoll", (m) => gather(socket, m, host, port), true],
  ["bare socket.send → socket nobody reads", (m) => socket.send(m, deafPort, host)],
  ["bare socket.send → port with no socket", (m) => socket.send(m, nobodyPort, host)],
  ["nothing (the loop and its wake-ups alone)", () => undefined],
];
const samples = MODES.map(() => variants.map(() => [] as number[]));
const kernel = MODES.map(() => variants.map(() => [] as number[]));
for (const mode of MODES) for (const [, send, g] of variants) await cpuPerMessage(send, mode, g === true); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const [m, mode] of MODES.entries())
    for (const [i, [, send, g]] of variants.entries()) {
      const [all, system] = await cpuPerMessage(send, mode, g === true);
      samples[m]![i]!.push(all);
      kernel[m]![i]!.push(system);
    }
}
const reportRows = await reportRounds();
await viewer.close();
for (const c of children) c.kill();
for (const [m, mode] of MODES.entries()) {
  const wake = mode.sleeps ? "a 1 ms timer" : "a turn of the loop";
  process.stdout.write(
    `\n${mode.name}: ${mode.perWake} per wake-up of ${wake}, ${mode.messages} messages × ${ROUNDS} rounds, CPU of this thread per message\n`,
  );
  process.stdout.write(
    "| variant | µs CPU per message (median) | min–max | of which system (median) |\n| --- | ---: | ---: | ---: |\n",
  );
  for (const [i, [name]] of variants.entries()) {
    const s = samples[m]![i]!;
    process.stdout.write(
      `| ${name} | ${median(s).toFixed(2)} | ${Math.min(...s).toFixed(2)}–${Math.max(...s).toFixed(2)} | ${median(kernel[m]![i]!).toFixed(2)} |\n`,
    );
  }
}
process.stdout.write(
  `\nreceiver reports of ${REPORT_VIEWERS} viewers on one tick, ${REPORT_SECONDS} s windows × ${ROUNDS} rounds, medians\n`,
);
process.stdout.write(
  "| report grid | passes/s | reports/s | µs CPU per report | min–max |\n| ---: | ---: | ---: | ---: | ---: |\n",
);
for (const row of reportRows) process.stdout.write(`${row}\n`);

/** One window of REPORT_VIEWERS viewers' reports on a tick of its own: [passes/s, reports/s, µs CPU/report]. */
async function reportWindow(gridMs: number): Promise<[number, number, number]> {
  let passes = 0;
  const tick = new SharedTick(FEEDBACK_TICK_MS, {
    begin: () => {
      passes++;
      beginGather();
    },
    end: endGather,
  });
  const stats = new ReceptionStats(90_000);
  stats.onPacket(block.ssrc, 1, 0, monoNs());
  const send = nativeSend as (m: Uint8Array) => void;
  const reports = Array.from(
    { length: REPORT_VIEWERS },
    (_, i) => new ReceiverReports(stats, send, ssrc + 1 + i, { gridMs }, tick),
  );
  await sleep(1500); // every viewer's first report drawn and sent: the steady state
  const [p0, r0] = [passes, reports.reduce((n, r) => n + r.sent, 0)];
  const t0 = process.threadCpuUsage();
  await sleep(REPORT_SECONDS * 1000);
  const d = process.threadCpuUsage(t0);
  const sent = reports.reduce((n, r) => n + r.sent, 0) - r0;
  for (const r of reports) r.close();
  return [(passes - p0) / REPORT_SECONDS, sent / REPORT_SECONDS, (d.user + d.system) / Math.max(1, sent)];
}

/** The report grids alternating, ROUNDS windows each; the table's rows. */
async function reportRounds(): Promise<string[]> {
  const grids = [FEEDBACK_TICK_MS, REPORT_GRID_MS];
  const got = grids.map(() => [[], [], []] as number[][]);
  for (let r = 0; r < ROUNDS; r++)
    for (const [g, gridMs] of grids.entries()) {
      const w = await reportWindow(gridMs);
      for (let k = 0; k < 3; k++) got[g]![k]!.push(w[k]!);
    }
  return grids.map((gridMs, g) => {
    const [p, n, us] = got[g]!.map((a) => median(a));
    const range = `${Math.min(...got[g]![2]!).toFixed(1)}–${Math.max(...got[g]![2]!).toFixed(1)}`;
    return `| ${gridMs} ms | ${p!.toFixed(1)} | ${n!.toFixed(1)} | ${us!.toFixed(1)} | ${range} |`;
  });
}
