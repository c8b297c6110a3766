// Process faults (issue 7, docs/reliability.md "Process faults"), through the real CLI in a
// child process: SIGINT and SIGTERM in every phase of a run (before the publisher connects,
// during warmup, during the ramp, during the hold, while the report is written) each end in a
// complete report marked interrupted, exit 3, and a process that exits by itself (pool, peers,
// sockets and timers closed); a second signal while writing exits at once and leaves no file;
// an output directory that cannot be written is exit 1 with one clear line and no file at all.
// (A second SIGINT during the wind-down, a worker that dies, the publisher failing mid-run:
// test/e2e/cli.test.ts, workers.test.ts, server-faults.test.ts.)
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { type CliResult, listDir, readReportPair, startCli, tempDir, wroteLines } from "./cli-harness.ts";
import { FaultServer } from "./faults/responder.ts";
import { writeDelayEnv } from "./faults/write-delay.ts";

const tmp = tempDir("process-faults");
chmodSync(tmp.dir, 0o755); // a child running as another user reads its scenario files here
after(() => tmp.remove());

let relay: Relay;
let base = "";
let front: FaultServer; // WHIP POSTs are never answered: the publisher never connects
let frontBase = "";
before(async () => {
  relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
  base = await relay.listen();
  front = new FaultServer({ target: base, whip: { kind: "never-answer" } });
  frontBase = await front.listen();
});
after(async () => {
  await front.close();
  await relay.close();
});

function scenarioFile(stream: string, over: Record<string, unknown>, whipBase = base): string {
  const path = join(tmp.dir, `${stream}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name: stream,
      whip: `${whipBase}/${stream}/whip`,
      whep: `${base}/${stream}/whep`,
      viewers: 2,
      rampSeconds: 0.5,
      holdSeconds: 2,
      warmupSeconds: 0.5,
      joinTimeoutSeconds: 3,
      excludeFirstSeconds: 0.5,
      loopbackOnly: true,
      ...over,
    }),
  );
  return path;
}

interface Interrupted {
  r: CliResult;
  out: string;
  /** ms from the signal to the exit */
  windDownMs: number;
  pair: ReturnType<typeof readReportPair>;
  report: {
    interrupted?: boolean;
    aggregate: { valid: boolean; verdict: string };
    errors: Record<string, number>;
    publisher?: { framesSent: number; errorKind?: string; error?: string };
    viewers: { id: number; joined: boolean; errorKind?: string }[] | null;
  };
}

/** Starts a run, sends `signal` `afterMs` after stderr shows `when`, and reads what it left. */
async function interruptRun(
  signal: "SIGINT" | "SIGTERM",
  file: string,
  when: string | RegExp,
  afterMs: number,
  opts: { args?: string[]; env?: Record<string, string> } = {},
): Promise<Interrupted> {
  const out = join(tmp.dir, `out-${signal}-${file.replace(/^.*\//, "")}`);
  const run = startCli(["run", file, "--out", out, ...(opts.args ?? [])], {
    timeoutMs: 30_000,
    ...(opts.env ? { env: opts.env } : {}),
  });
  await run.waitForStderr(when);
  await new Promise((r) => setTimeout(r, afterMs));
  assert.equal(run.child.exitCode, null, `still running when signalled: ${run.stderr()}`);
  const sentAt = performance.now();
  run.child.kill(signal);
  const r = await run.done;
  const windDownMs = performance.now() - sentAt;
  const pair = readReportPair(out); // exactly <stem>.json, .md, .html: no temporary file left
  return { r, out, windDownMs, pair, report: pair.report as unknown as Interrupted["report"] };
}

/** What every interrupted run must show, whatever its phase. */
function assertInterrupted(x: Interrupted, signal: string, verdict: string): void {
  const { r, report } = x;
  assert.equal(r.code, 3, `exit 3; stderr:\n${r.stderr}`);
  assert.equal(r.signal, null, "exited by itself, not killed");
  assert.ok(x.windDownMs < 5000, `exited ${Math.round(x.windDownMs)} ms after ${signal}`);
  assert.match(r.stderr, new RegExp(`${signal}: stopping; the report is still written`));
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  assert.equal(report.interrupted, true);
  assert.match(x.pair.jsonText, /\n {2}"interrupted": true,\n/);
  assert.equal(report.aggregate.valid, false);
  assert.equal(report.aggregate.verdict, verdict, `errors ${JSON.stringify(report.errors)}\n${r.stderr}`);
  assert.ok(x.pair.markdown.includes(verdict));
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines[0], verdict);
  assert.deepEqual(lines.slice(-3), wroteLines(x.out, x.pair));
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
/** the verdict line logged once the run has ended, just before the files are written */
const VERDICT_LOGGED = /\d\d {2}(valid: |no verdict: )/;

/** Both signals, each in its own run of the same phase, side by side. */
function bothSignals(
  make: (signal: (typeof SIGNALS)[number]) => Promise<Interrupted>,
): Promise<[Interrupted, Interrupted]> {
  return Promise.all(SIGNALS.map((sig) => make(sig))) as Promise<[Interrupted, Interrupted]>;
}

describe("a signal in every phase: report written and marked interrupted, exit 3, exits by itself", () => {
  test("before the publisher connects (the WHIP answer never comes)", async () => {
    const runs = await bothSignals((sig) =>
      interruptRun(sig, scenarioFile(`pre-${sig}`, {}, frontBase), "publishing vp8 to", 300),
    );
    for (const [i, x] of runs.entries()) {
      const sig = SIGNALS[i]!;
      assertInterrupted(x, sig, "no verdict: the publisher never streamed (transport)");
      assert.equal(x.report.publisher?.errorKind, "transport");
      assert.equal(x.report.publisher?.error, `POST to ${new URL(frontBase).host}: cancelled`);
      assert.equal(x.report.publisher?.framesSent, 0);
      assert.equal(x.report.viewers, null, "no viewer ran");
      assert.deepEqual(x.report.errors, { publisher_transport: 1 });
    }
  });

  test("during warmup", async () => {
    const runs = await bothSignals((sig) =>
      interruptRun(sig, scenarioFile(`warm-${sig}`, { warmupSeconds: 30 }), /publisher connected in/, 200),
    );
    for (const [i, x] of runs.entries()) {
      assertInterrupted(x, SIGNALS[i]!, "no verdict: none of the 2 viewers joined");
      assert.ok((x.report.publisher?.framesSent ?? 0) > 0, "the publisher streamed");
      assert.equal(x.report.publisher?.errorKind, undefined);
      assert.deepEqual(
        x.report.viewers?.map((v) => v.errorKind),
        ["not_started", "not_started"],
      );
    }
  });

  test("during the ramp (viewers in a worker thread)", async () => {
    const runs = await bothSignals((sig) =>
      interruptRun(
        sig,
        scenarioFile(`ramp-${sig}`, { viewers: 3, rampSeconds: 30 }),
        "starting 3 viewers",
        1500,
        { args: ["--workers", "1"] },
      ),
    );
    for (const [i, x] of runs.entries()) {
      assertInterrupted(
        x,
        SIGNALS[i]!,
        "no verdict: 2 of 3 viewers (66.7%) failed to join, above the 10% the rule allows",
      );
      const v = x.report.viewers ?? [];
      assert.equal(v[0]?.joined, true, "the first viewer had joined");
      assert.deepEqual(
        v.slice(1).map((w) => w.errorKind),
        ["not_started", "not_started"],
      );
    }
  });

  test("during the hold (viewers in a worker thread)", async () => {
    const runs = await bothSignals((sig) =>
      interruptRun(sig, scenarioFile(`hold-${sig}`, { holdSeconds: 30 }), "starting 2 viewers", 1500, {
        args: ["--workers", "1"],
      }),
    );
    for (const [i, x] of runs.entries()) {
      assertInterrupted(x, SIGNALS[i]!, "no verdict: the run was interrupted before its scheduled end");
      assert.deepEqual(
        x.report.viewers?.map((v) => v.joined),
        [true, true],
      );
    }
  });

  test("while the report is written: written again, complete and marked interrupted", async () => {
    const env = writeDelayEnv(1500);
    const runs = await bothSignals((sig) =>
      interruptRun(sig, scenarioFile(`write-${sig}`, { holdSeconds: 2 }), VERDICT_LOGGED, 300, { env }),
    );
    for (const [i, x] of runs.entries()) {
      assertInterrupted(x, SIGNALS[i]!, "no verdict: the run was interrupted before its scheduled end");
      // the run itself ended on time: its verdict was logged, then the interrupted one
      const logs = x.r.stderr;
      const first = logs.indexOf("valid: 2 of 2 viewers joined");
      assert.ok(first >= 0 && first < logs.indexOf("no verdict: the run was interrupted"), logs);
      assert.deepEqual(
        x.report.viewers?.map((v) => v.joined),
        [true, true],
      );
    }
  });

  test("a second SIGTERM while the report is written exits at once and leaves no file", async () => {
    const out = join(tmp.dir, "out-second");
    const run = startCli(["run", scenarioFile("second", { holdSeconds: 1 }), "--out", out], {
      timeoutMs: 30_000,
      env: writeDelayEnv(5000),
    });
    await run.waitForStderr(VERDICT_LOGGED);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(listDir(out).length, 1, "the JSON's temporary file is being written");
    run.child.kill("SIGTERM");
    await run.waitForStderr("SIGTERM: stopping");
    const sentAt = performance.now();
    run.child.kill("SIGTERM");
    const r = await run.done;
    assert.equal(r.code, 3, r.stderr);
    assert.ok(performance.now() - sentAt < 1500, "at once");
    assert.match(r.stderr, /second SIGTERM, exiting now/);
    assert.deepEqual(listDir(out), [], "the temporary file is removed on the way out");
  });
});

describe("an output directory that cannot be written: exit 1, one clear line, no file", () => {
  // root writes anywhere: the child then runs as nobody
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

  test("before the run: nothing is connected, nothing written", async () => {
    const ro = join(tmp.dir, "read-only");
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    const file = scenarioFile("ro", {});
    for (const out of [ro, join(ro, "sub")]) {
      const run = startCli(["run", file, "--out", out], { timeoutMs: 20_000, ...asUser });
      const r = await run.done;
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `whipbench run: --out ${out}: the output directory is not writable\n`);
      assert.deepEqual(listDir(ro), []);
    }
    assert.equal(relay.viewers("ro"), 0, "no viewer was started");
  });

  test("made read-only during the run: the run ends, exit 1, no temporary file left", async () => {
    const out = join(tmp.dir, "made-read-only");
    mkdirSync(out);
    chmodSync(out, 0o777);
    // viewers of a WHEP that never answers: the run lasts the 1 s join timeout
    const hang = new FaultServer({ target: base, whep: [{ kind: "never-answer" }] });
    const hb = await hang.listen();
    try {
      const run = startCli(
        [
          "view",
          "--whep",
          `${hb}/x/whep`,
          "-n",
          "1",
          "--duration",
          "1s",
          "--join-timeout",
          "1s",
          "--out",
          out,
        ],
        { timeoutMs: 20_000, ...asUser },
      );
      await run.waitForStderr("starting 1 viewers");
      chmodSync(out, 0o555);
      const r = await run.done;
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, "");
      assert.ok(r.stderr.endsWith("\nwhipbench view: the output directory is not writable\n"), r.stderr);
      assert.deepEqual(listDir(out), []);
    } finally {
      await hang.close();
    }
  });
});
