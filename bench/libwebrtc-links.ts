// Joins and NACKs beside libwebrtc on impaired links (issue 39): the built-in relay in this process
// with one link for every leg (RelayOptions.link, docs/definitions.md#relay-link: every datagram
// the relay sends a leg — STUN, DTLS, SRTP, RTCP — lost, delayed or reordered, seeded per leg), the
// clip published into it, libwebrtc M106 viewers (bench/libwebrtc-viewer.ts, each a child process)
// and a `whipbench view` (a child process) joining the same stream at the same time, so both kinds
// of receiver face the same link. Per receiver kind: joins that succeeded within the join timeout
// over those attempted, join time (libwebrtc: POST → its first frame at the sink; ours: POST →
// first complete keyframe), NACK messages per joined viewer (libwebrtc's nackCount, our
// nacksSent), our failures by kind, and transport feedback messages per second per viewer (ours:
// transportFeedbackSent; libwebrtc's getStats has no such count, bench/feedback-rate.ts). Kept apart from bench/libwebrtc.ts
// (its render patterns) on purpose. Used by bench:calibration-links and its CI test.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadClip } from "../src/core/clip/clip.ts";
import { takeWallAnchor } from "../src/core/clock/clock.ts";
import { emptyLegLinkCounts, type LegLinkCounts, type LegLinkProfile } from "../src/core/link/leg-link.ts";
import { Publisher } from "../src/main/publisher/publisher.ts";
import { Relay } from "../src/main/relay/relay.ts";
import type { IceOptions } from "../src/net/rtc.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const BIN = fileURLToPath(new URL("../bin/whipbench.js", import.meta.url));
const VIEWER = fileURLToPath(new URL("./libwebrtc-viewer.ts", import.meta.url));
const MS = 1e6;
/** The default join timeout (docs/definitions.md#scenario-keys), the rule both receivers are held to. */
export const JOIN_TIMEOUT_S = 10;

export interface ImpairedLink {
  name: string;
  link: Omit<LegLinkProfile, "seed">;
}

const NONE = { loss: 0, delayNs: 0, jitterNs: 0, duplicate: 0, afterNs: 0 };

/** The links of issue 39's targets: random loss, and 20 ms ± 5 ms normal jitter (reorders) with and without loss. */
export const LINKS: readonly ImpairedLink[] = [
  { name: "5 % random loss", link: { ...NONE, loss: 0.05 } },
  { name: "10 % random loss", link: { ...NONE, loss: 0.1 } },
  { name: "20 ms ± 5 ms (reorders)", link: { ...NONE, delayNs: 20 * MS, jitterNs: 5 * MS } },
  { name: "20 ms ± 5 ms + 1 % loss", link: { ...NONE, loss: 0.01, delayNs: 20 * MS, jitterNs: 5 * MS } },
];

/** One receiver's outcome: joined within the timeout, when, and the NACK messages it sent. */
export interface Receiver {
  joined: boolean;
  /** ms from its WHEP POST: libwebrtc's first frame at its sink, our first complete keyframe */
  joinMs?: number;
  nackMessages?: number;
  /** transport feedback messages per second of the run (ours: transportFeedbackSent; libwebrtc's
   * getStats does not count them, bench/feedback-rate.ts reads them at the relay) */
  feedbackPerS?: number;
  /** why it did not join: our errorKind, or libwebrtc's error / "no frame within 10 s" */
  failure?: string;
}

export interface LinkRound {
  link: string;
  seed: number;
  seconds: number;
  libwebrtc: Receiver[];
  ours: Receiver[];
  /** what the relay's link did to every leg of the round, summed */
  linkCounts: LegLinkCounts;
  viewCode: number | null;
  viewStderr: string;
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

interface LibwebrtcLine {
  ok: boolean;
  error?: string;
  nackCount?: number;
  framesDecoded?: number;
  sinkFrameMs?: number[];
}

async function libwebrtcViewer(whep: string, seconds: number): Promise<Receiver> {
  const child = spawn(process.execPath, [VIEWER, whep, String(seconds)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
  const { code, out, err } = await collect(child);
  clearTimeout(killer);
  let l: LibwebrtcLine;
  try {
    l = JSON.parse(out.trim().split("\n").pop() ?? "") as LibwebrtcLine;
  } catch {
    return { joined: false, failure: `exit ${code}: ${err.slice(-200)}` };
  }
  if (!l.ok) return { joined: false, failure: l.error ?? "failed" };
  const first = l.sinkFrameMs?.[0];
  if (first === undefined || first > JOIN_TIMEOUT_S * 1000)
    return { joined: false, failure: `no frame within ${JOIN_TIMEOUT_S} s` };
  return { joined: true, joinMs: first, nackMessages: l.nackCount ?? 0 };
}

interface ViewerJson {
  joined?: boolean;
  firstKeyframeMs?: number;
  nacksSent?: number;
  transportFeedbackSent?: number;
  errorKind?: string;
  error?: string;
}

/** Our failure's kind, and for client_handshake which step of ours did not finish. */
function failureOf(v: ViewerJson): string {
  const step = /own (ICE|DTLS)/.exec(v.error ?? "")?.[1];
  return `${v.errorKind ?? "unknown"}${v.errorKind === "client_handshake" && step ? ` (${step})` : ""}`;
}

async function ourViewers(whep: string, n: number, seconds: number, dir: string) {
  const args = ["view", "--whep", whep, "-n", String(n), "--ramp", "500ms", "--duration", `${seconds}s`];
  args.push("--join-timeout", `${JOIN_TIMEOUT_S}s`, "--loopback-only", "--out", dir, "--quiet");
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
  const r = await collect(child);
  clearTimeout(killer);
  const file = readdirSync(dir).find((f) => f.endsWith(".json"));
  if (file === undefined) return { code: r.code, stderr: r.err, ours: [] };
  const report = JSON.parse(readFileSync(join(dir, file), "utf8")) as { viewers?: ViewerJson[] };
  const ours = (report.viewers ?? []).map(
    (v): Receiver =>
      v.joined === true
        ? {
            joined: true,
            ...(v.firstKeyframeMs !== undefined ? { joinMs: v.firstKeyframeMs } : {}),
            nackMessages: v.nacksSent ?? 0,
            ...(v.transportFeedbackSent !== undefined
              ? { feedbackPerS: v.transportFeedbackSent / seconds }
              : {}),
          }
        : { joined: false, failure: failureOf(v) },
  );
  return { code: r.code, stderr: r.err, ours };
}

function sumCounts(relay: Relay, legs: number): LegLinkCounts {
  const sum = emptyLegLinkCounts();
  for (let n = 1; n <= legs; n++) {
    const c = relay.linkCounts(n);
    if (c === undefined) continue;
    for (const k of Object.keys(sum) as (keyof LegLinkCounts)[]) sum[k] += c[k];
  }
  return sum;
}

/** One round on one link: `libwebrtcViewers` libwebrtc receivers and `viewers` of ours, `seconds` long. */
export async function linkRound(
  link: ImpairedLink,
  seed: number,
  seconds: number,
  libwebrtcViewers: number,
  viewers: number,
): Promise<LinkRound> {
  const relay = new Relay({ ice: ICE, link: { ...link.link, seed } });
  const base = await relay.listen();
  const publisher = new Publisher({
    whip: `${base}/cal/whip`,
    bearer: undefined,
    clip: loadClip("vp8"),
    ice: ICE,
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
  });
  const stop = new AbortController();
  const dir = mkdtempSync(join(tmpdir(), "whipbench-links-"));
  try {
    await publisher.connect();
    const streaming = publisher.stream(stop.signal);
    await relay.ready("cal");
    const whep = `${base}/cal/whep`;
    const lib = Array.from({ length: libwebrtcViewers }, () => libwebrtcViewer(whep, seconds));
    const view = ourViewers(whep, viewers, seconds, dir);
    const [libwebrtc, ours] = await Promise.all([Promise.all(lib), view]);
    stop.abort();
    await streaming;
    return {
      link: link.name,
      seed,
      seconds,
      libwebrtc,
      ours: ours.ours,
      linkCounts: sumCounts(relay, libwebrtcViewers + viewers + 4),
      viewCode: ours.code,
      viewStderr: ours.stderr,
    };
  } finally {
    stop.abort();
    await publisher.close();
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
