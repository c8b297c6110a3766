// A receiver the project did not write: libwebrtc (M106, the npm package @roamhq/wrtc) playing one
// WHEP stream for a fixed time, then printing what its own getStats says it showed (one JSON line
// on stdout). Run as a child process (bench/libwebrtc.ts starts it): libwebrtc crashes in its
// clean-up when Node exits after a connected session, so this exits explicitly once the line is
// flushed. Offers only its 127.0.0.1 UDP candidate; no STUN server.
//   node libwebrtc-viewer.ts <whep-url> <seconds> [bearer-env]
import { createRequire } from "node:module";

interface Wrtc {
  RTCPeerConnection: new (cfg: object) => Pc;
  nonstandard: { RTCVideoSink: new (track: unknown) => { onframe: (() => void) | null; stop(): void } };
}
interface Pc {
  addTransceiver(kind: string, init: object): { receiver: { track: unknown } };
  createOffer(): Promise<{ sdp: string; type: string }>;
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

/** Only the 127.0.0.1 UDP host candidate stays in the offer. */
function loopbackOnly(sdp: string): string {
  return sdp
    .split("\r\n")
    .filter((l) => !l.startsWith("a=candidate:") || / udp \d+ 127\.0\.0\.1 \d+ typ host/i.test(l))
    .join("\r\n");
}

async function main(): Promise<void> {
  if (url === undefined || secondsText === undefined) throw new Error("usage: <whep-url> <seconds>");
  const wrtc = createRequire(import.meta.url)("@roamhq/wrtc") as Wrtc;
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  const tr = pc.addTransceiver("video", { direction: "recvonly" });
  // frames reaching a sink, with their instants (a second view of the freezes: sink intervals)
  const sink = new wrtc.nonstandard.RTCVideoSink(tr.receiver.track);
  const frameMs: number[] = [];
  sink.onframe = () => frameMs.push(performance.now());
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== "complete") {
    await new Promise<void>((resolve) => {
      pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && resolve();
      setTimeout(resolve, 3000);
    });
  }
  const offer = loopbackOnly(pc.localDescription?.sdp ?? "");
  const headers: Record<string, string> = { "content-type": "application/sdp" };
  const bearer = bearerEnv ? process.env[bearerEnv] : undefined;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const startMs = performance.now();
  const res = await fetch(url, { method: "POST", headers, body: offer });
  if (res.status !== 201) throw new Error(`WHEP answered ${res.status}`);
  await pc.setRemoteDescription({ type: "answer", sdp: await res.text() });
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
      ])
        pick[k] = s[k];
    }
  }
  const location = res.headers.get("location");
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
