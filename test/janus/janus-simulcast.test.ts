// Janus with simulcast: whipbench publishes three layers (l, m, h) over WHIP into the recipe's
// VideoRoom room (VP8: 1235, H.264: 1236); each viewer is a VideoRoom subscriber behind the recipe's
// WHEP front (bench/servers/janus/whep-front/layers.mjs), gets one substream, and chooses it through
// the WHEP layer extension, which the front turns into VideoRoom `configure` with `substream`. The
// viewers ask for l at once and for h 5 s after their WHEP POST; the report names each frame's layer
// from its fingerprint and times the switch from the ask to the first complete keyframe of h
// (docs/definitions.md#layer-switches). A second run asks for nothing: its viewers get h, the
// highest (the front joins each subscriber on it), as the relay's do. The stack runs in a network
// namespace of the test's own (test/janus/netns-janus.ts), so it never meets one on the host's
// 127.0.0.1. Skipped without root or the stack, unless WHIPBENCH_JANUS_REQUIRED=1 (CI) makes that a
// failure.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Report } from "../../src/core/report/types.ts";
import { stackMissing, startNetnsJanus } from "./netns-janus.ts";

const REQUIRED = process.env["WHIPBENCH_JANUS_REQUIRED"] === "1";
const scenarioFile = (codec: string) =>
  fileURLToPath(
    new URL(`../../bench/servers/janus/scenarios/janus-${codec}-simulcast.json`, import.meta.url),
  );
const VIEWERS = 4;
const SWITCH_AT_MS = 5000;
/** one frame of the layers (30 fps, docs/definitions.md#simulcast-layers) */
const FRAME_MS = 1000 / 30;

const missing = process.getuid?.() !== 0 ? "not root (ip netns)" : stackMissing();
const skip = missing && !REQUIRED ? `cannot run here: ${missing}` : false;

/** The `rid-simulcast` block of the room's publisher (Admin API `handle_info`), or null. */
function publisherRids(stack: ReturnType<typeof startNetnsJanus>): Record<string, unknown> | null {
  for (const s of (stack.admin({ janus: "list_sessions" }).sessions as number[] | undefined) ?? []) {
    for (const h of (stack.admin({ janus: "list_handles" }, `/${s}`).handles as number[] | undefined) ?? []) {
      const info = stack.admin({ janus: "handle_info" }, `/${s}/${h}`).info as
        | {
            plugin_specific?: { type?: string };
            webrtc?: { media?: Record<string, Record<string, unknown>> };
          }
        | undefined;
      if (info?.plugin_specific?.type !== "publisher") continue;
      for (const m of Object.values(info.webrtc?.media ?? {}))
        if (m["rid-simulcast"]) return m["rid-simulcast"] as Record<string, unknown>;
    }
  }
  return null;
}

/**
 * A second run on the same stack, with no layer choice: every viewer gets the highest layer, as the
 * relay's do, because the front joins each subscriber on Janus's substream 0 (our h).
 */
async function noAskViewersOnHighest(
  stack: ReturnType<typeof startNetnsJanus>,
  scenario: Record<string, unknown>,
  dir: string,
  t: { diagnostic: (s: string) => void },
): Promise<void> {
  const { layerSwitch: _ls, ...rest } = scenario;
  const out = join(dir, "no-ask");
  const file = join(dir, "no-ask.json");
  writeFileSync(
    file,
    JSON.stringify({ ...rest, name: "janus-simulcast-no-ask", viewers: 2, holdSeconds: 5 }),
  );
  const run = stack.whipbench(stack.server, ["run", file, "--out", out, "--no-html"]);
  const code = await new Promise<number | null>((r) => run.once("close", (c) => r(c)));
  assert.equal(code, 0, `whipbench run (no ask) exited ${code}\n${run.text()}`);
  const name = readdirSync(out).find((f) => f.startsWith("whipbench-") && f.endsWith(".json"));
  assert.ok(name, "a report of the no-ask run");
  const report = JSON.parse(readFileSync(join(out, name), "utf8")) as Report;
  const viewers = report.viewers ?? [];
  assert.equal(viewers.length, 2);
  for (const v of viewers) {
    const at = `no-ask viewer ${v.id}`;
    assert.equal(v.joined, true, at);
    assert.equal(v.layerChoice, undefined, `${at}: asked nothing`);
    const layer = new Map((v.layers ?? []).map((l) => [l.rid, l]));
    assert.ok((layer.get("h")?.samples ?? 0) > 0, `${at}: ${JSON.stringify(v.layers)}`);
    assert.ok((layer.get("h")?.timeMs ?? 0) > 3000, `${at}: time on h ${layer.get("h")?.timeMs}`);
    // Janus may hand on the first keyframe to arrive, a lower layer's (the publisher sends each
    // frame lowest layer first), and move to h at h's keyframe of the same picture: at most one frame
    for (const rid of ["l", "m"])
      assert.ok((layer.get(rid)?.timeMs ?? 0) < FRAME_MS, `${at}: time on ${rid} ${layer.get(rid)?.timeMs}`);
  }
  const times = (v: (typeof viewers)[number]) =>
    (v.layers ?? []).map((l) => `${l.rid} ${l.timeMs.toFixed(1)}`);
  t.diagnostic(`no ask, ms per layer: ${viewers.map((v) => `${v.id}: ${times(v).join(" ")}`).join("; ")}`);
}

for (const codec of ["vp8", "h264"])
  test(`Janus VideoRoom, ${codec}: simulcast publisher, one substream per viewer, switched l -> h`, {
    skip,
    timeout: 210_000,
  }, async (t) => {
    assert.equal(missing, null, `required here but ${missing}`);
    const out = mkdtempSync(join(tmpdir(), `whipbench-janus-simulcast-${codec}-`));
    // the namespace's Janus gathers its veth address, not a loopback one: no loopbackOnly
    const scenario = { ...JSON.parse(readFileSync(scenarioFile(codec), "utf8")), loopbackOnly: false };
    const file = join(out, "scenario.json");
    writeFileSync(file, JSON.stringify(scenario));
    const stack = startNetnsJanus();
    try {
      const run = stack.whipbench(stack.server, ["run", file, "--out", out, "--no-html"]);
      let ended = false;
      const closed = new Promise<number | null>((r) => run.once("close", (c) => r(c))).finally(() => {
        ended = true;
      });
      // the publisher's handle, read while the run publishes: once a second (a loaded machine may
      // take seconds to publish), at most 20 times
      let rids: Record<string, unknown> | null = null;
      for (let i = 0; i < 20 && rids === null && !ended; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        rids = publisherRids(stack);
      }
      const code = await closed;
      assert.equal(code, 0, `whipbench run exited ${code}\n${run.text()}`);
      // Janus took the three rids and numbers them as if listed highest first (no rid_order in the
      // JSEP simple-whip-server sends): why the front maps l to substream 2 (layers.mjs)
      assert.deepEqual(rids?.["rid"], ["l", "m", "h"], JSON.stringify(rids));
      assert.equal(rids?.["rid-order"], "hml");
      const name = readdirSync(out).find((f) => f.startsWith("whipbench-") && f.endsWith(".json"));
      assert.ok(name, "a report");
      const report = JSON.parse(readFileSync(join(out, name), "utf8")) as Report;
      const a = report.aggregate;
      assert.equal(a.joined, VIEWERS, a.verdict);
      assert.ok(report.publisher && report.publisher.framesSent > 0, "the publisher sent frames");
      const viewers = report.viewers ?? [];
      assert.equal(viewers.length, VIEWERS);
      const lines: string[] = [];
      for (const v of viewers) {
        const at = `viewer ${v.id}`;
        const choice = v.layerChoice;
        assert.ok(choice, `${at} has a layer choice`);
        assert.equal(choice.available, true, `${at}: ${choice.reason}`);
        assert.deepEqual(
          choice.asks.map((k) => [k.rid, k.status]),
          [
            ["l", 200],
            ["h", 200],
          ],
          `${at} asks`,
        );
        const layer = new Map((v.layers ?? []).map((l) => [l.rid, l]));
        // every complete frame's fingerprint names a layer of the clip: Janus forwards the layers' payloads
        assert.equal(v.oneWayDelay[0]?.unmatchedFrames, 0, `${at} unmatched frames`);
        assert.ok((layer.get("l")?.timeMs ?? 0) > 1000, `${at} time on l ${layer.get("l")?.timeMs}`);
        assert.ok((layer.get("h")?.timeMs ?? 0) > 3000, `${at} time on h ${layer.get("h")?.timeMs}`);
        assert.ok((layer.get("h")?.samples ?? 0) > 0 && layer.get("h")?.delayMs, `${at} delay samples on h`);
        // the viewer starts on l and ends on h; on the way down in Janus's numbering (2 -> 0) Janus may
        // step through m for the frames before h's keyframe, a switch it made unasked. Janus hands a new
        // subscriber the first keyframe of any substream: l's, sent first, unless a keyframe of h (the
        // front's join target) answering Janus's own PLI came sooner; the start ask is then a switch to l
        const switches = choice.switches;
        const startAsk = (s: (typeof switches)[number] | undefined) => s?.to === "l" && s.askedMs !== null;
        assert.ok(
          switches[0]?.from === "l" || startAsk(switches[0]),
          `${at} first stay ${JSON.stringify(switches)}`,
        );
        const toH = switches.at(-1);
        assert.equal(toH?.to, "h", `${at} last switch ${JSON.stringify(switches)}`);
        assert.ok((layer.get("m")?.timeMs ?? 0) < 1000, `${at} time on m ${layer.get("m")?.timeMs}`);
        for (const s of switches.slice(0, -1))
          assert.ok(s.askedMs === null || startAsk(s), `${at} ${JSON.stringify(s)}`);
        assert.ok(toH?.askedMs !== null && toH !== undefined && toH.askedMs >= SWITCH_AT_MS, `${at} asked`);
        // the ask reached h at its next keyframe: within the publisher's 1 s GOP (sooner when Janus's
        // PLI cut it short), plus the slack of a loaded machine
        assert.ok(
          toH.switchMs !== null && toH.switchMs > 0 && toH.switchMs < 2000,
          `${at} switch ${toH.switchMs}`,
        );
        lines.push(
          `${v.id}: ${switches.map((s) => `${s.from}->${s.to} ${s.switchMs?.toFixed(0) ?? "-"}`).join(", ")}`,
        );
      }
      const pooled = a.layerSwitches;
      assert.ok(pooled, "aggregate.layerSwitches");
      assert.equal(pooled.withExtension, VIEWERS);
      // every viewer's switch to h reached it; a start ask that Janus's first keyframe of h turned into a
      // switch to l (allowed above) reached l's keyframe too and counts beside them
      const reachedPerViewer = viewers.map((v) =>
        (v.layerChoice?.switches ?? []).filter((s) => s.switchMs !== null),
      );
      const reachedAll = reachedPerViewer.reduce((n, r) => n + r.length, 0);
      assert.ok(reachedAll >= VIEWERS, `every viewer reached h: ${reachedAll}`);
      assert.equal(pooled.reached, reachedAll, JSON.stringify(pooled));
      assert.ok(pooled.switchMs && pooled.switchMs.n === reachedAll, JSON.stringify(pooled));
      t.diagnostic(
        `switch ask -> new layer's first keyframe p50 ${pooled.switchMs.p50.toFixed(0)} ms, max ` +
          `${pooled.switchMs.max.toFixed(0)} ms; ${lines.join("; ")}`,
      );
      await noAskViewersOnHighest(stack, scenario, out, t);
    } finally {
      await stack.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
