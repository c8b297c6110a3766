// The render model held to a real receiver (docs/definitions.md#viewer-experience): the built-in
// relay in this process with a fault pattern, the clip published into it, libwebrtc viewers
// (bench/libwebrtc-viewer.ts, each a child process) and a `whipbench view` (a child process) watching
// the same stream for the same time. Every leg loses the same packets (the relay's dropStreamEvery),
// so the two receivers see the same frames broken, and only from FAULT_FROM_S after every receiver
// has its leg until FAULT_UNTIL_S before the first of them stops (bench/fault-window.ts): a `view` on
// a busy machine can take seconds to start, and a freeze it never saw begin would count for libwebrtc
// alone. The window applied is in the result; a faulted pattern whose window came out short is
// unavailable. Used by bench:calibration and its CI test.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scenarioClip } from "../src/core/clip/temporal.ts";
import { takeWallAnchor } from "../src/core/clock/clock.ts";
import type { ViewerRenderBlock } from "../src/core/report/render-types.ts";
import { Publisher } from "../src/main/publisher/publisher.ts";
import type { RelayTestHooks } from "../src/main/relay/options.ts";
import { Relay, type RelayOptions } from "../src/main/relay/relay.ts";
import type { IceOptions } from "../src/net/rtc.ts";
import { type AppliedWindow, FaultWindowClock, shortWindowReason } from "./fault-window.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const BIN = fileURLToPath(new URL("../bin/whipbench.js", import.meta.url));
const VIEWER = fileURLToPath(new URL("./libwebrtc-viewer.ts", import.meta.url));

export interface FaultPattern {
  name: string;
  relay: Omit<RelayOptions, "ice" | "token">;
  /** the scenario clip the publisher sends (absent: the VP8 clip; docs/definitions.md#vp8-temporal-layer-clip) */
  clip?: "vp8-tl";
}

/** The four patterns of issue 31's table, each leg losing the same packets. */
export const PATTERNS: readonly FaultPattern[] = [
  { name: "none", relay: {} },
  { name: "drop 1 in 300 (never repaired)", relay: { test: { dropStreamEvery: 300 } } },
  { name: "drop 1 in 100 (never repaired)", relay: { test: { dropStreamEvery: 100 } } },
  { name: "lose 1 in 50 (NACK repairs)", relay: { loseEvery: 50 } },
  // a server that pauses: the stream held 220 ms every 2 s, then everything held sent at once
  {
    name: "stall 220 ms every 2 s, then burst",
    relay: { test: { stallStream: { everyMs: 2000, forMs: 220 } } },
  },
  {
    name: "stall 150 ms every 2 s, then burst",
    relay: { test: { stallStream: { everyMs: 2000, forMs: 150 } } },
  },
  // marker bits cleared for the fault's window: no frame ends, neither receiver shows anything
  { name: "marker bits cleared", relay: { test: { clearMarkerStream: true } } },
  // 7-bit PictureIDs: libwebrtc reads them in a 15-bit space, each 127 → 0 a step back
  { name: "7-bit PictureIDs", relay: { test: { pictureId7: true } } },
  // a server probing bandwidth: 3 padding-only packets (224 bytes of padding) after every 5th frame,
  // the publisher's packets renumbered past them; VP8 without PictureIDs all along, so both receivers
  // find references by sequence number, and the padding must continue the chain or every gap breaks it
  {
    name: "padding-only packets (no PictureID)",
    relay: { test: { noPictureId: true, paddingStream: { everyFrames: 5, packets: 3, bytes: 224 } } },
  },
  // the control: the same numbers skipped but no padding sent (lost for good): every gap breaks the
  // chain until the next keyframe on both receivers
  {
    name: "padding lost (no PictureID)",
    relay: {
      test: { noPictureId: true, paddingStream: { everyFrames: 45, packets: 1, bytes: 224, lost: true } },
    },
  },
  // VP8 with two temporal layers: every packet of every 4th layer-1 frame lost for good (one frame
  // in 8); a layer-1 frame is referenced by none, so a receiver that follows TID/TL0PICIDX misses it
  // alone
  {
    name: "temporal layers, 1 in 4 top-layer frames lost",
    clip: "vp8-tl",
    relay: { test: { dropTopLayerEvery: 4 } },
  },
  // the control: the clip without layers, the same share of frames lost (every 8th): each breaks
  // the chain until the next keyframe
  { name: "no layers, 1 in 8 frames lost (control)", relay: { test: { dropTopLayerEvery: 4 } } },
];

/** The stream-wide faults switched on and off for the fault's window (the others hold all along). */
const TOGGLED = [
  "dropStreamEvery",
  "stallStream",
  "clearMarkerStream",
  "pictureId7",
  "paddingStream",
  "dropTopLayerEvery",
] as const;

/** What libwebrtc's getStats said (M106 puts the freeze figures on the `track` report). */
export interface LibwebrtcStats {
  ok: boolean;
  error?: string;
  freezeCount?: number;
  totalFreezesDuration?: number;
  pauseCount?: number;
  framesDecoded?: number;
  framesDropped?: number;
  packetsLost?: number;
  nackCount?: number;
  pliCount?: number;
  /** seconds spent decoding, in all (its decode-time estimate sets its playout delay) */
  totalDecodeTime?: number;
  /** seconds frames spent in its jitter buffer, in all, and the frames counted */
  jitterBufferDelay?: number;
  jitterBufferEmittedCount?: number;
  /** RFC 3550 interarrival jitter over its own receive instants, seconds */
  jitter?: number;
  /** instants (ms from its WHEP POST) at which decoded frames reached its sink */
  sinkFrameMs?: number[];
}

export interface Calibration {
  pattern: string;
  seconds: number;
  libwebrtc: LibwebrtcStats[];
  /** the render counters of each of our viewers, from the `view` report */
  ours: ViewerRenderBlock[];
  /** each of our viewers' RFC 3550 jitter (kernel arrival stamps), ms, from the same report */
  oursJitterMs: number[];
  /** the same from a second checkout's `view` on the same stream (bench:calibration --baseline) */
  baseline: ViewerRenderBlock[];
  /** the `view`'s exit status and stderr (for a failure message) */
  viewCode: number | null;
  viewStderr: string;
  /** the stream-wide faults' window as applied; null for a pattern without one (its faults hold all along) */
  faultWindow: AppliedWindow | null;
  /** why the pattern cannot be compared: its fault window was short or empty (fault-window.ts) */
  unavailable?: string;
}

/** Why libwebrtc cannot run here, or null when it can (its binary ships inside the npm package). */
export function libwebrtcMissing(): string | null {
  try {
    createRequire(import.meta.url).resolve("@roamhq/wrtc");
  } catch {
    return "@roamhq/wrtc is not installed (a devDependency: npm ci installs it)";
  }
  if (process.platform !== "linux" && process.platform !== "darwin")
    return `no libwebrtc binary for ${process.platform}`;
  return null;
}

function collect(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

function libwebrtcViewer(whep: string, seconds: number): Promise<LibwebrtcStats> {
  const child = spawn(process.execPath, [VIEWER, whep, String(seconds)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
  return collect(child).then(({ code, out, err }) => {
    clearTimeout(killer);
    const line = out.trim().split("\n").pop() ?? "";
    try {
      return JSON.parse(line) as LibwebrtcStats;
    } catch {
      return { ok: false, error: `exit ${code}: ${err.slice(-300) || line.slice(-300)}` };
    }
  });
}

async function ourViewers(whep: string, n: number, seconds: number, dir: string, bin = BIN) {
  const args = ["view", "--whep", whep, "-n", String(n), "--ramp", "100ms", "--duration", `${seconds}s`];
  args.push("--join-timeout", "5s", "--loopback-only", "--out", dir);
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
  const r = await collect(child);
  clearTimeout(killer);
  const file = readdirSync(dir).find((f) => f.endsWith(".json"));
  if (file === undefined) return { code: r.code, stderr: r.err, ours: [], jitterMs: [] };
  const report = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
    viewers?: { render?: ViewerRenderBlock; rtp?: { jitterMs?: number | null } }[];
  };
  const watched = (report.viewers ?? []).filter((v) => v.render !== undefined);
  const ours = watched.map((v) => v.render as ViewerRenderBlock);
  const jitterMs = watched.map((v) => v.rtp?.jitterMs ?? Number.NaN);
  return { code: r.code, stderr: r.err, ours, jitterMs };
}

/** One pattern: `libwebrtcViewers` libwebrtc receivers and `viewers` of ours, `seconds` long. */
export async function calibrate(
  pattern: FaultPattern,
  seconds: number,
  libwebrtcViewers: number,
  viewers: number,
  /** another checkout's bin/whipbench.js whose `view` watches too (its model beside ours) */
  baselineBin?: string,
): Promise<Calibration> {
  // the stream-wide faults go on once every receiver has its leg, and off before the first stops
  const test: RelayTestHooks = { ...pattern.relay.test };
  const faults: RelayTestHooks = {};
  for (const k of TOGGLED) {
    if (test[k] === undefined) continue;
    Object.assign(faults, { [k]: test[k] });
    delete test[k];
  }
  const relay = new Relay({ ice: ICE, ...pattern.relay, test });
  const base = await relay.listen();
  const publisher = new Publisher({
    whip: `${base}/cal/whip`,
    bearer: undefined,
    clip: scenarioClip("vp8", pattern.clip),
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
  });
  const stop = new AbortController();
  const dir = mkdtempSync(join(tmpdir(), "whipbench-calibration-"));
  try {
    await publisher.connect();
    const streaming = publisher.stream(stop.signal);
    await relay.ready("cal");
    const whep = `${base}/cal/whep`;
    const spawnedMs = performance.now();
    const lib = Array.from({ length: libwebrtcViewers }, () => libwebrtcViewer(whep, seconds));
    const view = ourViewers(whep, viewers, seconds, dir);
    const baseDir = mkdtempSync(join(tmpdir(), "whipbench-calibration-base-"));
    const baseView =
      baselineBin === undefined
        ? Promise.resolve({ ours: [] as ViewerRenderBlock[] })
        : ourViewers(whep, viewers, seconds, baseDir, baselineBin);
    const legsWanted = libwebrtcViewers + viewers * (baselineBin === undefined ? 1 : 2);
    const faulted = Object.keys(faults).length > 0;
    const faultClock = new FaultWindowClock(seconds, legsWanted);
    const since = () => performance.now() - spawnedMs;
    let from: NodeJS.Timeout | undefined;
    let until: NodeJS.Timeout | undefined;
    const legs = setInterval(() => {
      const plan = faultClock.legs(relay.viewers("cal"), since());
      if (plan === null) return;
      clearInterval(legs);
      if (!faulted || plan.untilMs <= plan.fromMs) return;
      from = setTimeout(() => {
        Object.assign(test, faults);
        faultClock.switchedOn(since());
      }, plan.fromMs - since());
      until = setTimeout(() => {
        for (const k of TOGGLED) delete test[k];
        faultClock.switchedOff(since());
      }, plan.untilMs - since());
    }, 100);
    const [libwebrtc, ours, baseline] = await Promise.all([Promise.all(lib), view, baseView]);
    const applied = faultClock.applied(since());
    rmSync(baseDir, { recursive: true, force: true });
    clearInterval(legs);
    clearTimeout(from);
    clearTimeout(until);
    for (const k of TOGGLED) delete test[k];
    stop.abort();
    await streaming;
    const short = faulted ? shortWindowReason(applied) : null;
    return {
      pattern: pattern.name,
      seconds,
      libwebrtc,
      ours: ours.ours,
      oursJitterMs: ours.jitterMs,
      baseline: baseline.ours,
      viewCode: ours.code,
      viewStderr: ours.stderr,
      faultWindow: faulted ? applied : null,
      ...(short !== null ? { unavailable: short } : {}),
    };
  } finally {
    stop.abort();
    await publisher.close();
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
