// Ground truth for what the client itself adds to the one-way delay (issue 11). The built-in
// relay runs in this process, on the same monotonic clock, and records when each publisher
// packet reached it and when it handed each packet to each viewer leg's socket; the viewers run
// in one worker thread whose intake records each datagram's stamp and receive-lag bound. Per row
// (viewers on one thread × receive path × mode) it prints:
//   - viewer side: the viewer's stamp − the relay's send instant, p50/p95/p99 (ms): what the
//     client adds on receive (plus the kernel's loopback delivery and the thread's wake-up);
//   - the receive-lag bound of every datagram (p50/p99; the report's own figure counts from the
//     first join plus excludeFirstSeconds, so it leaves the start-up out) and how often the bound
//     covers the true wait (within 0.1 ms);
//   - publisher side: the relay's receive of a frame's first packet − the publisher's send
//     instant (send log), p50/p95/p99, and the report's publisher send lag;
//   - the report's one-way delay p50/p99 and whether the ceiling guard fired, and whether it
//     fired whenever the true client-added p99 reached the guard's own threshold.
// Modes: `sliced` is the intake as built (stamp first, 100 µs slices); `inline` is the baseline
// measured in the same run: each datagram processed inside its own callback right after its stamp,
// as every receive path did before the intake.
//
// Stamps: `kernel` takes each arrival instant from the kernel's receive stamp, `thread` (the
// fallback, forced) from the viewer thread's reading (docs/definitions.md#arrival-stamps). The jitter
// columns set the report's jitter p50 beside the same RFC 3550 jitter of the relay's own writes
// to each leg (the wire's, on loopback).
//
//   npm run bench:truth -- [--rows 10,50,100,200,300] [--paths lean,werift] [--modes inline,sliced] [--young 6,default]
//                          [--stamps kernel,thread] [--ramp 5] [--hold 12]
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { buildReport } from "../src/core/report/build.ts";
import { RECEIVE_PATHS, type ReceivePath } from "../src/core/scenario/defaults.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { exactSummary } from "../src/core/stats/summaries.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { Relay } from "../src/main/relay/relay.ts";
import { poolEngine, VIEWER_YOUNG_GENERATION_MB } from "../src/main/run/pool-engine.ts";
import { run } from "../src/main/run/runner.ts";
import { isRtpDatagram } from "../src/net/send-stamp.ts";
import { receivePathEngine } from "./receive-path-engine.ts";
import { LegWrites, stampBuffer, stampRecords } from "./truth-records.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const rows = arg("rows", "10,50,100,200,300").split(",").map(Number);
const paths = arg("paths", "lean,werift")
  .split(",")
  .map((p) => {
    if (!RECEIVE_PATHS.includes(p as ReceivePath)) throw new Error(`--paths: unknown receive path ${p}`);
    return p as ReceivePath;
  });
const modes = arg("modes", "inline,sliced").split(",");
for (const m of modes) if (m !== "inline" && m !== "sliced") throw new Error(`--modes: unknown mode ${m}`);
/** the viewer thread's young generation, MB; "default": V8's own (src/main/run/pool-engine.ts) */
const youngs = arg("young", String(VIEWER_YOUNG_GENERATION_MB))
  .split(",")
  .map((v) => (v === "default" ? null : Number(v)));
const stamps = arg("stamps", "kernel,thread").split(",");
for (const m of stamps)
  if (m !== "kernel" && m !== "thread") throw new Error(`--stamps: unknown source ${m}`);
const rampSeconds = Number(arg("ramp", "5"));
const holdSeconds = Number(arg("hold", "12"));
/** the bound covers the true wait when lag + this ≥ the wait (the kernel's delivery and dispatch) */
const COVER_NS = 0.1e6;
const MAX_RECORDS = 1_500_000;

interface Truth {
  legWrites: LegWrites;
  /** per distinct RTP timestamp, in arrival order: the relay's receive of the frame's first packet */
  frameRecv: number[];
  lastTs: number;
}

async function measure(
  viewers: number,
  path: ReceivePath,
  mode: string,
  young: number | null,
  stamp: "kernel" | "thread",
  index: number,
): Promise<string[]> {
  const truth: Truth = { legWrites: new LegWrites(), frameRecv: [], lastTs: -1 };
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: true },
    test: {
      taps: {
        publisherReceive(d, now) {
          if (!isRtpDatagram(d)) return;
          const ts = d.readUInt32BE(4);
          if (ts !== truth.lastTs) {
            truth.lastTs = ts;
            truth.frameRecv.push(now);
          }
        },
        legSend: truth.legWrites.record,
      },
    },
  });
  const url = await relay.listen("127.0.0.1", 0);
  const tap = stampBuffer(MAX_RECORDS);
  const sent: number[] = [];
  try {
    const s = normaliseScenario({
      name: `truth-${viewers}-${path}-${mode}`,
      whip: `${url}/truth${index}/whip`,
      whep: `${url}/truth${index}/whep`,
      codec: "vp8",
      viewers,
      rampSeconds,
      holdSeconds,
      warmupSeconds: 1,
      excludeFirstSeconds: 2,
      loopbackOnly: true,
      receivePath: path,
      stampSource: stamp,
    });
    validateScenario(s);
    const engine = receivePathEngine(
      poolEngine({
        workers: 1,
        youngGenerationMb: young,
        test: {
          workerEntry: new URL("./truth-worker.ts", import.meta.url),
          workerData: { tap, inline: mode === "inline" },
        },
      }),
      [path],
    );
    const input = await run({
      command: "run",
      scenario: s,
      bearer: undefined,
      engine,
      log: memoryLogger(),
      interrupt: new AbortController().signal,
      onFrameSent: (k, t0) => {
        sent[k] = t0;
      },
    });
    const r = buildReport(input);
    // viewer side: pair each stamped datagram with the relay's send of it
    const added: number[] = [];
    const lags: number[] = [];
    let covered = 0;
    let withLag = 0;
    for (const rec of stampRecords(tap)) {
      const a = truth.legWrites.waitNs(rec);
      if (a === undefined) continue;
      added.push(a);
      const lag = rec.lagNs;
      if (lag >= 0) {
        withLag++;
        lags.push(lag);
        if (lag + COVER_NS >= a) covered++;
      }
    }
    const pub: number[] = [];
    for (let k = 0; k < Math.min(sent.length, truth.frameRecv.length); k++) {
      const t0 = sent[k];
      if (t0 !== undefined) pub.push(truth.frameRecv[k]! - t0);
    }
    const ms = (v: number) => fmtFixed(v / 1e6, 2);
    const three = (xs: number[]) => {
      const q = exactSummary(xs);
      return xs.length === 0 ? "—" : `${ms(q.p50)} / ${ms(q.p95)} / ${ms(q.p99)}`;
    };
    const addedQ = exactSummary(added);
    const lagQ = exactSummary(lags);
    const c = r.client;
    const thr = c.ceiling?.thresholds.receiveLagP99Ms;
    const fired = c.ceiling?.nearCeiling ?? false;
    const owe = r.aggregate.oneWayDelay[0];
    const guard =
      thr === undefined || c.stampSource === "kernel"
        ? fired
          ? `fired: ${c.ceiling?.evidence?.[0] ?? ""}`
          : "quiet"
        : addedQ.p99 / 1e6 >= thr
          ? fired
            ? "fired, needed"
            : "MISSED"
          : fired
            ? "fired"
            : "quiet";
    return [
      path,
      c.stampSource ?? "—",
      mode,
      young === null ? "V8 default" : `${young} MB`,
      String(viewers),
      `${added.length}`,
      three(added),
      lags.length === 0 ? "—" : `${ms(lagQ.p50)} / ${ms(lagQ.p99)}`,
      withLag === 0 ? "—" : `${fmtFixed((100 * covered) / withLag, 1)}%`,
      three(pub),
      c.publisherSendLagMs
        ? `${fmtFixed(c.publisherSendLagMs.p50, 2)} / ${fmtFixed(c.publisherSendLagMs.p99, 2)}`
        : "—",
      owe?.ms ? `${fmtFixed(owe.ms.p50, 2)} / ${fmtFixed(owe.ms.p99, 2)}` : "—",
      `${guard}${thr !== undefined && c.stampSource !== "kernel" ? ` (≥ ${fmtFixed(thr, 2)} ms)` : ""}`,
      `${r.aggregate.jitterMs.n > 0 ? fmtFixed(r.aggregate.jitterMs.p50, 3) : "—"} / ${fmtFixed(exactSummary(truth.legWrites.jitterMs()).p50, 3)}`,
      `${r.aggregate.joined}/${viewers}`,
    ];
  } finally {
    await relay.close();
  }
}

const header = [
  "path",
  "stamps",
  "mode",
  "young generation",
  "viewers/thread",
  "paired packets",
  "viewer stamp − relay send p50/p95/p99 (ms)",
  "receive lag p50/p99, every datagram (ms; kernel: exact, thread: bound)",
  "lag covers wait",
  "relay recv − publisher stamp p50/p95/p99 (ms)",
  "publisher send lag p50/p99 (ms)",
  "one-way delay p50/p99 (ms)",
  "ceiling guard",
  "jitter p50: report / relay writes (ms)",
  "joined",
];
const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
const out = [line(header), line(header.map(() => "---"))];
process.stderr.write(`${out.join("\n")}\n`);
let index = 0;
for (const viewers of rows) {
  for (const path of paths) {
    for (const mode of modes) {
      for (const young of youngs) {
        for (const stamp of stamps as ("kernel" | "thread")[]) {
          const row = line(await measure(viewers, path, mode, young, stamp, index++));
          out.push(row);
          process.stderr.write(`${row}\n`);
        }
      }
    }
  }
}
process.stdout.write(`${out.join("\n")}\n`);
