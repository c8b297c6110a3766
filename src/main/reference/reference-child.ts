// One reference viewer (docs/definitions.md#reference-viewers): libwebrtc M106 (@roamhq/wrtc) in a
// process of its own, watching the run's WHEP endpoint beside the load's viewers. Its parent
// (reference-viewers.ts) writes one JSON line of settings on stdin (the bearer token travels there,
// never in argv or the environment) before the run's t0, then "start" at t0 and "stop" at the
// viewers' deadline; this process loads libwebrtc at once (`ready`), joins at "start" and writes
// JSON lines on stdout: `joined`, `stats` once a second (getStats' cumulative figures, for
// /metrics), then `final` with the last figures, or `unavailable`/`failed` with a reason. It
// offers only UDP candidates (only 127.0.0.1 with loopbackOnly) and uses no STUN server. libwebrtc
// crashes in its clean-up when Node exits after a connected session, so it exits explicitly once
// its last line is flushed.
import { createInterface } from "node:readline";
import { readReferenceFigures } from "../../core/reference/figures.ts";
import { deleteResource, HttpExchangeError, patchAnswer, postOffer } from "../../net/sdp-http.ts";
import { loadWrtc, type Wrtc, type WrtcPeer } from "./wrtc.ts";

/** The settings line the parent writes first. */
export interface ReferenceChildSettings {
  whep: string;
  bearer?: string;
  loopbackOnly: boolean;
  statsEveryMs: number;
  /** it stops by itself this long after it started, whatever its parent does */
  maxSeconds: number;
}

const started = performance.now();
const sinceMs = (): number => Math.round((performance.now() - started) * 10) / 10;
let ending = false;

function line(o: object, exit = false): void {
  process.stdout.write(`${JSON.stringify(o)}\n`, () => {
    if (exit) process.exit(0);
  });
}

/** Only host UDP candidates stay in the SDP (only 127.0.0.1 with loopbackOnly). */
function keepCandidates(sdp: string, loopbackOnly: boolean): string {
  const keep = loopbackOnly ? / udp \d+ 127\.0\.0\.1 \d+ typ host/i : / udp \d+ \S+ \d+ typ host/i;
  return sdp
    .split("\r\n")
    .filter((l) => !l.startsWith("a=candidate:") || keep.test(l))
    .join("\r\n");
}

async function gathered(pc: WrtcPeer): Promise<void> {
  if (pc.iceGatheringState === "complete") return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, 3000);
    pc.onicegatheringstatechange = () => {
      if (pc.iceGatheringState === "complete") {
        clearTimeout(t);
        resolve();
      }
    };
  });
}

interface Session {
  pc: WrtcPeer;
  track: unknown;
  location: string | null;
}

/** The WHEP exchange: our offer answered (200/201), or the server's counter-offer (406) answered by PATCH. */
async function join(wrtc: Wrtc, s: ReferenceChildSettings): Promise<Session> {
  const opts = { bearer: s.bearer, timeoutMs: 10_000 };
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  const tr = pc.addTransceiver("video", { direction: "recvonly" });
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const res = await postOffer(s.whep, keepCandidates(pc.localDescription?.sdp ?? "", s.loopbackOnly), opts);
  if (res.status !== 406) {
    await pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
    return { pc, track: tr.receiver.track, location: res.location };
  }
  pc.close();
  if (res.location === null)
    throw new HttpExchangeError("bad_answer", "the counter-offer carried no Location");
  const answering = new wrtc.RTCPeerConnection({ iceServers: [] });
  let track: unknown = null;
  answering.ontrack = (e) => {
    if (e.track.kind === "video") track = e.track;
  };
  await answering.setRemoteDescription({ type: "offer", sdp: res.sdp });
  await answering.setLocalDescription(await answering.createAnswer());
  await gathered(answering);
  await patchAnswer(
    res.location,
    keepCandidates(answering.localDescription?.sdp ?? "", s.loopbackOnly),
    opts,
  );
  if (track === null) throw new HttpExchangeError("bad_answer", "the counter-offer has no video");
  return { pc: answering, track, location: res.location };
}

async function figures(pc: WrtcPeer): Promise<ReturnType<typeof readReferenceFigures>> {
  return readReferenceFigures((await pc.getStats()).values());
}

async function main(
  settings: ReferenceChildSettings,
  go: Promise<boolean>,
  stop: Promise<void>,
): Promise<void> {
  const loaded = loadWrtc();
  if ("reason" in loaded) return line({ type: "unavailable", reason: loaded.reason }, true);
  line({ type: "ready" });
  if (!(await go)) return line({ type: "failed", reason: "the load's viewers never started" }, true);
  const session = await join(loaded.wrtc, settings);
  line({ type: "joined", ms: sinceMs() });
  // the first frame's instant starts the time judged; the sink is stopped at once (it copies frames)
  const sink = new loaded.wrtc.nonstandard.RTCVideoSink(session.track);
  let firstFrameMs: number | null = null;
  sink.onframe = () => {
    if (firstFrameMs !== null) return;
    firstFrameMs = sinceMs();
    line({ type: "firstFrame", ms: firstFrameMs });
    setImmediate(() => sink.stop());
  };
  const every = setInterval(async () => {
    const f = await figures(session.pc).catch(() => null);
    if (f !== null && "figures" in f && !ending) line({ type: "stats", figures: f.figures });
  }, settings.statsEveryMs);
  await Promise.race([stop, new Promise((r) => setTimeout(r, settings.maxSeconds * 1000))]);
  ending = true;
  clearInterval(every);
  const endMs = sinceMs();
  const last = await figures(session.pc);
  await deleteResource(session.location, { bearer: settings.bearer });
  session.pc.close();
  const measuredMs = firstFrameMs === null ? 0 : endMs - firstFrameMs;
  if ("missing" in last)
    return line({ type: "failed", reason: `getStats lacks ${last.missing.join(", ")}` }, true);
  line({ type: "final", figures: last.figures, firstFrameMs, measuredMs }, true);
}

const input = createInterface({ input: process.stdin });
let settings: ReferenceChildSettings | null = null;
let stopNow: () => void = () => {};
let goNow: (started: boolean) => void = () => {};
const stop = new Promise<void>((r) => {
  stopNow = r;
});
const go = new Promise<boolean>((r) => {
  goNow = r;
});
input.on("line", (text) => {
  if (settings !== null) {
    if (text.trim() === "start") goNow(true);
    if (text.trim() === "stop") {
      goNow(false);
      stopNow();
    }
    return;
  }
  settings = JSON.parse(text) as ReferenceChildSettings;
  main(settings, go, stop).catch((err: unknown) =>
    line({ type: "failed", reason: (err instanceof Error ? err.message : String(err)).split("\n")[0] }, true),
  );
});
input.on("close", () => {
  goNow(false);
  stopNow();
});
