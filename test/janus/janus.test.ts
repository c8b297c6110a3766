// Real-server tests: whipbench against Janus 1.1.2 behind Meetecho's WHIP server and the
// recipe's WHEP front (bench/servers/janus), all on 127.0.0.1. The stack is started here when it
// is not running (and stopped again afterwards); without an installed stack the tests are
// skipped, unless WHIPBENCH_JANUS_REQUIRED=1 (CI, `npm run test:janus`) makes that a failure.
// The CLI runs as a child process, exactly as a user runs it; the JSON report is then read.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { NO_SEND_LOG_REASON, TRANSIT_NOT_NEGOTIATED_REASON } from "../../src/core/report/reasons.ts";
import type { Report, ViewerReport } from "../../src/core/report/types.ts";
import { assertComparableUnlessClientBound } from "../e2e/harness.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECIPE = join(ROOT, "bench/servers/janus");
const REQUIRED = process.env["WHIPBENCH_JANUS_REQUIRED"] === "1";

/** Why the recipe's stack cannot run here, or null when it is installed. */
function notInstalled(): string | null {
  const janus = spawnSync("janus", ["--version"], { encoding: "utf8" });
  if (janus.error) return "janus is not on PATH";
  const gst = spawnSync("gst-launch-1.0", ["--version"], { encoding: "utf8" });
  if (gst.error) return "gst-launch-1.0 is not on PATH";
  for (const p of [
    ".local/lib/loopback-ifaddrs.so",
    ".local/simple-whip-server/usr/share/simple-whip-server/src/server.js",
    "whip-front/node_modules/express",
    "whep-front/node_modules/janus-whep-server",
  ]) {
    if (!existsSync(join(RECIPE, p))) return `bench/servers/janus/${p} is missing`;
  }
  return null;
}

function recipe(script: string, env: NodeJS.ProcessEnv = {}): { code: number; output: string } {
  const r = spawnSync("bash", [join(RECIPE, script)], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return { code: r.status ?? 1, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function whipbench(args: string[], timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "bin/whipbench.js"), ...args], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

function readReport(dir: string): Report {
  const file = readdirSync(dir).find((f) => f.endsWith(".json"));
  assert.ok(file, `no JSON report in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), "utf8")) as Report;
}

function assertViewerBasics(v: ViewerReport, codec: string): void {
  const at = `viewer ${v.id}`;
  assert.equal(v.joined, true, `${at} joined`);
  assert.equal(v.codec, codec, `${at} codec`);
  // Janus 1.1.2 cannot take a subscriber's offer: the front answers 406 with its own offer
  assert.equal(v.whepFlow, "counter-offer", `${at} WHEP flow`);
  assert.ok(v.rtp.received > 0, `${at} received packets`);
  assert.equal(v.rtp.lost, 0, `${at} lost (expected ${v.rtp.expected}, received ${v.rtp.received})`);
  assert.equal(v.rtp.expected, v.rtp.received, `${at} expected = received`);
  // the publisher's GOP is 1 s unless a viewer's PLI (Janus passes them on through rtp_forward's
  // RTCP back-channel) brought the next keyframe forward: never longer, and never a zero interval
  const min = v.rtp.keyframeIntervalMinS ?? Number.NaN;
  const max = v.rtp.keyframeIntervalMaxS ?? Number.NaN;
  assert.ok(min > 0 && min <= 1, `${at} keyframe interval min ${min} s`);
  assert.ok(max >= min && max <= 1 + 1e-9, `${at} keyframe interval max ${max} s`);
  // Janus 1.1.2 does not know abs-capture-time: its offers never carry it
  assert.equal(v.packetTransit.available, false, `${at} packet transit`);
  assert.equal(v.packetTransit.negotiated, false, `${at} abs-capture-time negotiated`);
  assert.equal(v.packetTransit.reason, TRANSIT_NOT_NEGOTIATED_REASON, `${at} packet transit reason`);
}

const missing = notInstalled();
const skip =
  missing && !REQUIRED
    ? `Janus stack not installed (${missing}): run bench/servers/janus/install.sh as root on Debian 12`
    : false;

describe("Janus 1.1.2 over WHIP/WHEP on 127.0.0.1", { skip }, () => {
  let startedHere = false;
  const outDirs: string[] = [];
  const outDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), "whipbench-janus-"));
    outDirs.push(d);
    return d;
  };

  before(() => {
    assert.equal(missing, null, `the Janus stack is required here but ${missing}`);
    if (recipe("status.sh").code !== 0) {
      const r = recipe("start.sh");
      assert.equal(r.code, 0, `bench/servers/janus/start.sh failed:\n${r.output}`);
      startedHere = true;
    }
    const streaming = readFileSync(join(RECIPE, "run/conf/janus.plugin.streaming.jcfg"), "utf8");
    assert.ok(
      !streaming.includes("videobufferkf = true"),
      "the running Janus has videobufferkf = true (it shortens a new viewer's first keyframe interval); " +
        "these tests expect the recipe's default: bench/servers/janus/stop.sh, then start.sh",
    );
  });

  after(() => {
    if (startedHere) recipe("stop.sh");
    for (const d of outDirs) rmSync(d, { recursive: true, force: true });
  });

  for (const codec of ["vp8", "h264"] as const) {
    test(`${codec.toUpperCase()}: 10 viewers, ramp 5 s, hold 20 s, one process`, async (t) => {
      const out = outDir();
      const scenario = join(RECIPE, `scenarios/janus-${codec}-10.json`);
      const res = await whipbench(["run", scenario, "--out", out], 90_000);
      assert.equal(res.code, 0, `whipbench run exited ${res.code}\n${res.stdout}\n${res.stderr}`);
      const r = readReport(out);
      const a = r.aggregate;
      assert.equal(a.verdict, "valid: 10 of 10 viewers joined");
      assert.equal(a.valid, true);
      assert.equal(a.joined, 10);
      assert.equal(a.failed, 0);
      assert.equal(r.topology, "single-process");
      assert.equal(r.scenario.holdSeconds, 20);
      assert.ok(r.publisher && r.publisher.framesSent > 0);
      assert.equal(r.publisher?.stamped, false, "the WHIP answer does not accept abs-capture-time");
      const viewers = r.viewers ?? [];
      assert.equal(viewers.length, 10);
      for (const v of viewers) assertViewerBasics(v, codec);
      // Janus gives each session its own port: after a thread's two probes its viewers share a socket
      const ws = r.client.workers ?? [];
      assert.ok(
        ws.some((w) => w.viewerSockets === "mixed") &&
          !ws.some((w) => /one address/.test(w.viewerSocketsReason ?? "")),
        JSON.stringify(ws.map((w) => [w.viewers, w.viewerSockets, w.viewerSocketsReason])),
      );
      assert.equal(a.packetsLost, 0);
      assert.equal(a.packetTransit.available, false);
      assert.equal(a.packetTransit.reason, TRANSIT_NOT_NEGOTIATED_REASON);
      const f = a.oneWayDelay[0];
      assert.ok(f, "pooled fingerprint block");
      assert.equal(f.source, "fingerprint");
      assert.equal(f.available, true);
      assertComparableUnlessClientBound(r, f);
      assert.equal(f.uncertaintyMs, 0);
      assert.equal(f.viewers, 10);
      // Janus forwards every frame byte for byte: every complete frame matches the clip
      assert.equal(f.unmatchedFrames, 0);
      assert.equal(f.invalid, 0);
      assert.equal(f.incompleteFrames, 0);
      assert.ok(f.samples > 10 * 15 * 25, `samples ${f.samples}`);
      assert.ok(f.ms && f.ms.p50 > 0 && f.ms.p99 < 250, `one-way delay ${JSON.stringify(f.ms)}`);
      const joinMs = a.joinFirstKeyframeMs;
      t.diagnostic(
        `one-way delay p50 ${f.ms.p50} ms p99 ${f.ms.p99} ms; join p50 ${joinMs?.p50} ms p95 ${joinMs?.p95} ms; ` +
          `loss ${a.packetsLost} of ${a.packetsReceived}`,
      );
    });
  }

  test("view of a stream GStreamer publishes (not whipbench): 3 viewers, 10 s", async (t) => {
    const out = outDir();
    const gst: ChildProcess = spawn("bash", [join(RECIPE, "gst-publish.sh"), "vp8", "30"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let gstErr = "";
    gst.stderr?.on("data", (b: Buffer) => {
      gstErr += b.toString();
    });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(gst.exitCode, null, `gst-publish.sh exited early: ${gstErr}`);
      const whep = "http://127.0.0.1:7090/whep/endpoint/ext-vp8";
      const res = await whipbench(
        ["view", "--whep", whep, "-n", "3", "--duration", "10s", "--loopback-only", "--out", out],
        60_000,
      );
      assert.equal(res.code, 0, `whipbench view exited ${res.code}\n${res.stdout}\n${res.stderr}`);
      const r = readReport(out);
      assert.equal(r.aggregate.verdict, "valid: 3 of 3 viewers joined");
      assert.equal(r.aggregate.valid, true);
      assert.equal(r.topology, "split");
      assert.equal(r.publisher, undefined);
      const viewers = r.viewers ?? [];
      assert.equal(viewers.length, 3);
      for (const v of viewers) {
        assertViewerBasics(v, "vp8");
        assert.equal(v.oneWayDelay[0]?.available, false);
        assert.equal(v.oneWayDelay[0]?.reason, NO_SEND_LOG_REASON);
      }
      const joinMs = r.aggregate.joinFirstKeyframeMs;
      t.diagnostic(`join p50 ${joinMs?.p50} ms p95 ${joinMs?.p95} ms; loss ${r.aggregate.packetsLost}`);
    } finally {
      gst.kill("SIGTERM");
    }
  });
});
