// A receiver the project did not write: libwebrtc (M106, the npm package @roamhq/wrtc) playing one
// WHEP stream for a fixed time, then printing what its own getStats says it showed (one JSON line
// on stdout). Run as a child process (bench/libwebrtc.ts starts it): libwebrtc crashes in its
// clean-up when Node exits after a connected session, so this exits explicitly once the line is
// flushed. Offers only its 127.0.0.1 UDP candidate (its IPv4 UDP host candidates when the URL's
// host is not 127.0.0.1: a viewer in a network namespace of a test's own); no STUN server. A 201
// carries the server's answer; a 406 with an SDP body is the server's own offer (Janus 1.1.2's WHEP
// front, the old draft's counter-offer, as src/net/sdp-http.ts takes it): a new peer answers it and
// PATCHes the answer to the 406's Location.
//   node libwebrtc-viewer.ts <whep-url> <seconds> [bearer-env]
import { createRequire } from "node:module";

interface Wrtc {
  RTCPeerConnection: new (cfg: object) => Pc;
  nonstandard: { RTCVideoSink: new (track: unknown) => { onframe: (() => void) | null; stop(): void } };
}
interface Pc {
  addTransceiver(kind: string, init: object): { receiver: { track: unknown } };
  createOffer(): Promise<{ sdp: string; type: string }>;
  createAnswer(): Promise<{ sdp: string; type: string }>;
  ontrack: ((e: { track: { kind: string } }) => void) | null;
  setLocalDescription(d: object): Promise<void>;
  setRemoteDescription(d: object): Promise<void>;
  localDescription: { sdp: string } | null;
  iceGatheringState: string;
  onicegatheringstatechange: (() => void) | null;
  getStats(): Promise<Map<string, Record<string, unknown>>>;
  close(): void;
}

const [url, secondsText, bearerEnv] = process.argv.slice(2);
const out = (o: object): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`, () => process.exit(0));
};

/** Toward 127.0.0.1 only the 127.0.0.1 UDP host candidate stays; elsewhere the IPv4 UDP host ones. */
function keepCandidates(sdp: string, loopback: boolean): string {
  const keep = loopback ? / udp \d+ 127\.0\.0\.1 \d+ typ host/i : / udp \d+ \d+\.\d+\.\d+\.\d+ \d+ typ host/i;
  return sdp
    .split("\r\n")
    .filter((l) => !l.startsWith("a=candidate:") || keep.test(l))
    .join("\r\n");
}

async function gathered(pc: Pc): Promise<void> {
  if (pc.iceGatheringState === "complete") return;
  await new Promise<void>((resolve) => {
    pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && resolve();
    setTimeout(resolve, 3000);
  });
}

async function main(): Promise<void> {
  if (url === undefined || secondsText === undefined) throw new Error("usage: <whep-url> <seconds>");
  const wrtc = createRequire(import.meta.url)("@roamhq/wrtc") as Wrtc;
  const loopback = new URL(url).hostname === "127.0.0.1";
  let pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  const tr = pc.addTransceiver("video", { direction: "recvonly" });
  // frames reaching a sink, with their instants (a second view of the freezes: sink intervals)
  const frameMs: number[] = [];
  let sink = new wrtc.nonstandard.RTCVideoSink(tr.receiver.track);
  sink.onframe = () => frameMs.push(performance.now());
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const offer = keepCandidates(pc.localDescription?.sdp ?? "", loopback);
  const headers: Record<string, string> = { "content-type": "application/sdp" };
  const bearer = bearerEnv ? process.env[bearerEnv] : undefined;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const startMs = performance.now();
  const res = await fetch(url, { method: "POST", headers, body: offer });
  const location = res.headers.get("location");
  if (res.status === 201) {
    await pc.setRemoteDescription({ type: "answer", sdp: await res.text() });
  } else if (res.status === 406 && location) {
    // the server's offer: a transceiver added by addTransceiver is never reused for a remote
    // offer (JSEP), so a new peer takes it and its remote track feeds the sink
    sink.stop();
    pc.close();
    pc = new wrtc.RTCPeerConnection({ iceServers: [] });
    const next = pc;
    const tracked = new Promise<void>((resolve) => {
      next.ontrack = (e) => {
        if (e.track.kind !== "video") return;
        sink = new wrtc.nonstandard.RTCVideoSink(e.track);
        sink.onframe = () => frameMs.push(performance.now());
        resolve();
      };
    });
    await pc.setRemoteDescription({ type: "offer", sdp: await res.text() });
    await pc.setLocalDescription(await pc.createAnswer());
    await tracked;
    await gathered(pc);
    const answer = keepCandidates(pc.localDescription?.sdp ?? "", loopback);
    const patch = await fetch(new URL(location, url), { method: "PATCH", headers, body: answer });
    if (!patch.ok) throw new Error(`WHEP PATCH answered ${patch.status}`);
  } else {
    throw new Error(`WHEP answered ${res.status}`);
  }
  await new Promise((r) => setTimeout(r, Number(secondsText) * 1000));
  const endMs = performance.now();
  const stats = await pc.getStats();
  sink.stop();
  const pick: Record<string, unknown> = {};
  for (const s of stats.values()) {
    if (s.type === "track" && s.kind === "video") {
      for (const k of ["freezeCount", "totalFreezesDuration", "pauseCount", "totalPausesDuration"])
        pick[k] = s[k];
    }
    if (s.type === "inbound-rtp" && s.kind === "video") {
      for (const k of [
        "framesDecoded",
        "framesDropped",
        "packetsLost",
        "nackCount",
        "pliCount",
        "keyFramesDecoded",
        "totalDecodeTime",
        "jitterBufferDelay",
        "jitterBufferEmittedCount",
        "jitter",
      ])
        pick[k] = s[k];
    }
  }
  if (location) await fetch(new URL(location, url), { method: "DELETE", headers }).catch(() => {});
  pc.close();
  out({
    ok: true,
    ...pick,
    sinkFrameMs: frameMs.map((t) => Math.round((t - startMs) * 10) / 10),
    endMs: endMs - startMs,
  });
}

main().catch((err: unknown) => out({ ok: false, error: err instanceof Error ? err.message : String(err) }));
