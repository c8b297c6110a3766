// Live progress: the terminal status line, the periodic log line for a pipe, log lines that
// never mix with the status line, and the sliding-window quantiles behind the live delay.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LiveQuantiles } from "../../src/core/stats/live-quantiles.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";
import { Progress, type ProgressSink } from "../../src/main/observe/progress.ts";
import { logLine, type ProgressState, statusLine } from "../../src/main/observe/progress-line.ts";

function sink(isTTY: boolean, logEveryS?: number): ProgressSink & { text: string } {
  const s = {
    isTTY,
    columns: 200,
    text: "",
    write(t: string) {
      s.text += t;
    },
    ...(logEveryS !== undefined ? { logEveryS } : {}),
  };
  return s;
}

const thread = (p99: number, elu: number) => ({
  cpuSeconds: 0.1,
  eventLoopUtilisation: elu,
  eventLoopDelayMs: { p50: 1, p99, max: p99 },
});

function progress(isTTY: boolean, logEveryS?: number) {
  return progressWith(isTTY, logEveryS, false);
}

function progressWith(isTTY: boolean, logEveryS: number | undefined, churn: boolean) {
  const out = sink(isTTY, logEveryS);
  const log = memoryLogger();
  const p = new Progress({
    sink: out,
    log,
    viewersTarget: 4,
    churn,
    plannedS: 10,
    threadName: (s) => `worker ${s}`,
  });
  return { p, out, log };
}

test("progress on a terminal: one status line rewritten each second with every figure", () => {
  const { p, out, log } = progress(true);
  p.update({ t: 1, active: 1, packets: 120, cpuPercent: 12.4, eventLoopDelayMs: 2.5 }, [
    { shard: 0, joined: 1, failed: 0, delaySamples: [1e6, 2e6, 3e6, 4e6], thread: thread(2.5, 0.2) },
    { shard: 1, joined: 0, failed: 1, delaySamples: [], thread: thread(3.5, 0.1) },
  ]);
  p.update({ t: 2, active: 2, packets: 300, cpuPercent: 20, eventLoopDelayMs: 1 }, [
    { shard: 0, joined: 1, failed: 0, delaySamples: [5e6], thread: thread(1, 0.2) },
  ]);
  const frames = out.text.split("\r\x1b[2K").filter((f) => f !== "");
  assert.equal(frames.length, 2, "one frame per second, no newline");
  assert.ok(!out.text.includes("\n"));
  const last = frames[1]!;
  for (const want of [
    "2/10 s",
    "viewers 2/4 joined, 2 active, 1 failed",
    "300 pkt/s",
    "cpu 20%",
    "loop p99 1.0 ms",
  ]) {
    assert.ok(last.includes(want), `${want} in ${last}`);
  }
  // the window holds both seconds: 1..5 ms, p50 = 3 ms, p99 = 5 ms (±2 %)
  const m = /delay p50 ([\d.]+) p99 ([\d.]+) ms/.exec(last);
  assert.ok(m, last);
  assert.ok(Math.abs(Number(m[1]) - 3) <= 0.1 && Math.abs(Number(m[2]) - 5) <= 0.1, last);
  assert.ok(!last.includes("WARNING"));
  assert.deepEqual(log.lines, []);

  // a log line meanwhile: the status line is cleared first and drawn again after
  const wrapped = p.wrap(log);
  out.text = "";
  wrapped.line("SIGINT: stopping");
  assert.equal(log.lines.at(-1), "SIGINT: stopping");
  assert.ok(out.text.startsWith("\r\x1b[2K") && out.text.endsWith(last), JSON.stringify(out.text));
  out.text = "";
  p.stop();
  assert.equal(out.text, "\r\x1b[2K", "stop clears the line");
  p.update({ t: 3, active: 2, packets: 1 }, []);
  assert.equal(out.text, "\r\x1b[2K", "nothing after stop");
});

test("progress on a terminal: a saturated thread shows the ceiling warning", () => {
  const { p, out } = progress(true);
  p.update({ t: 1, active: 1, packets: 1, eventLoopDelayMs: 40 }, [
    { shard: 3, joined: 1, failed: 0, delaySamples: [], thread: thread(40, 0.97) },
  ]);
  assert.ok(out.text.includes("WARNING near client ceiling"), out.text);
  assert.ok(out.text.includes("delay p50 – p99 – ms"), "no sample yet");
});

test("progress: the live ceiling names the thread's own drops, not the host's", () => {
  const { p, out } = progress(true);
  // own drops read, none: quiet whatever the host's counter says
  p.update({ t: 1, active: 1, packets: 1 }, [
    { shard: 0, joined: 1, failed: 0, delaySamples: [], thread: thread(1, 0.1), socketDrops: 0 },
  ]);
  assert.ok(!out.text.includes("WARNING"), out.text);
  p.update({ t: 2, active: 1, packets: 1 }, [
    { shard: 0, joined: 0, failed: 0, delaySamples: [], thread: thread(1, 0.1), socketDrops: 7 },
  ]);
  assert.ok(out.text.includes("WARNING near client ceiling"), out.text);
});

test("progress to a pipe: a plain log line every few seconds, nothing else on the sink", () => {
  const { p, out, log } = progress(false, 2);
  for (let t = 1; t <= 5; t++) {
    p.update({ t, active: t, packets: 100 * t, cpuPercent: 5 }, [
      { shard: 0, joined: 1, failed: 0, delaySamples: [2e6], thread: thread(1, 0.1) },
    ]);
  }
  assert.equal(out.text, "");
  assert.equal(log.lines.length, 2, log.lines.join("\n"));
  assert.match(
    log.lines[0]!,
    /^progress 2\/10 s: 2 of 4 viewers joined, 2 active, 0 failed; 200 packets\/s; one-way delay p50 2\.0 ms, p99 2\.0 ms; client CPU 5%, worst event-loop delay p99 1\.0 ms$/,
  );
  assert.match(log.lines[1]!, /^progress 4\/10 s: 4 of 4 viewers joined/);
  p.final({ shard: 0, joined: 0, failed: 2, delaySamples: [] });
  p.update({ t: 6, active: 0, packets: 0 }, []);
  assert.match(log.lines[2]!, /2 failed/);
});

test("status line: cut to the terminal width", () => {
  const s: ProgressState = {
    elapsedS: 5,
    plannedS: 20,
    viewersTarget: 1000,
    joined: 999,
    active: 998,
    failed: 1,
    packetsPerS: 123456,
    delayP50Ms: 1.42,
    delayP99Ms: 17.3,
    cpuPercent: 55,
    eventLoopDelayMs: 25,
    receiveLagMs: 0.42,
    ceiling: ["worker 0: event-loop delay p99 25.0 ms ≥ 20.0 ms"],
  };
  const line = statusLine(s, 60);
  assert.equal(line.length, 59);
  assert.ok(line.endsWith("…"));
  assert.ok(statusLine(s, 300).endsWith("rx lag p99 0.42 ms · WARNING near client ceiling"));
  assert.match(logLine(s), /worst event-loop delay p99 25 ms, worst receive lag p99 0\.42 ms; WARNING/);
  assert.ok(!logLine({ ...s, receiveLagMs: null }).includes("receive lag"));
  assert.match(
    logLine(s),
    /WARNING: near the client's own ceiling \(worker 0: event-loop delay p99 25\.0 ms/,
  );
});

test("with churn: places and the viewers that held them, never `34 of 20 viewers joined`", () => {
  const s: ProgressState = {
    elapsedS: 30,
    plannedS: 40,
    viewersTarget: 20,
    churn: true,
    joined: 34,
    active: 18,
    failed: 2,
    packetsPerS: 1000,
    delayP50Ms: 1,
    delayP99Ms: 2,
    cpuPercent: 10,
    eventLoopDelayMs: 1,
    receiveLagMs: null,
    ceiling: [],
  };
  assert.match(logLine(s), /^progress 30\/40 s: 34 viewers joined in 20 places, 18 active, 2 failed; /);
  assert.ok(
    statusLine(s, 300).includes("20 places: viewers 34 joined, 18 active, 2 failed"),
    statusLine(s, 300),
  );
  for (const line of [logLine(s), statusLine(s, 300)]) assert.ok(!/34 of 20|34\/20/.test(line), line);
  const { p, log } = progressWith(false, 1, true);
  p.update({ t: 1, active: 1, packets: 1 }, [{ shard: 0, joined: 3, failed: 0, delaySamples: [] }]);
  assert.match(log.lines[0] ?? "", /: 3 viewers joined in 4 places, 1 active/);
});

test("live quantiles: nearest rank within the 2 % bucket width, over a sliding window", () => {
  const q = new LiveQuantiles(3);
  assert.equal(q.quantilesNs([50]), null);
  const values = Array.from({ length: 1000 }, (_, i) => (i + 1) * 1e5); // 0.1 .. 100 ms
  q.record(values);
  const [p50, p99] = q.quantilesNs([50, 99])!;
  assert.ok(Math.abs(p50! / 50e6 - 1) < 0.011, String(p50));
  assert.ok(Math.abs(p99! / 99e6 - 1) < 0.011, String(p99));
  q.advance();
  q.record([1e9]);
  assert.equal(q.count, 1001);
  q.advance();
  q.advance(); // the first second has left the window
  assert.equal(q.count, 1);
  assert.ok(Math.abs(q.quantilesNs([50])![0]! / 1e9 - 1) < 0.011);
  q.record([0, -5, Number.NaN, 1e12]);
  const [lo, hi] = q.quantilesNs([1, 100])!;
  assert.equal(lo, 1e3, "below 1 µs counts in the lowest bucket");
  assert.equal(hi, 60e9, "above 60 s counts in the highest");
});
