// An `rtx-time` in the answer (docs/definitions.md#keyframe-requests): libwebrtc M106's
// DetermineMaxWaitForFrame turns the NACK history into the frame buffer's waits and the "receiving
// a keyframe" window; without one (or one of 1 s or more) the waits stay 200 ms and 3 s. And the
// value as the viewer reads it from the negotiated codecs, also after a real werift offer/answer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { KeyframeRequestRule, maxWaitsNs } from "../../src/core/render/keyframe-request-rule.ts";
import { newPeer, videoCodecs } from "../../src/net/rtc.ts";
import type { RTCRtpTransceiver } from "../../src/net/werift/api.ts";
import { rtxTimeMs } from "../../src/workers/receive/negotiated.ts";

const MS = 1e6;

test("maxWaitsNs: the history and 3 × it when 3 × it is under 3 s, else 200 ms and 3 s", () => {
  const w = (ms: number) => {
    const { keyframeNs, frameNs } = maxWaitsNs(ms);
    return [keyframeNs / MS, frameNs / MS];
  };
  assert.deepEqual(w(-1), [200, 3000]); // none in the answer
  assert.deepEqual(w(0), [200, 3000]);
  assert.deepEqual(w(1000), [200, 3000]); // 3 × 1000 is not under 3 s (libwebrtc's default history)
  assert.deepEqual(w(999), [999, 2997]);
  assert.deepEqual(w(100), [100, 300]);
  assert.deepEqual(w(400), [400, 1200]); // a keyframe wait longer than the default's 200 ms
});

/** PLI instants (ms) of a rule fed a packet every 10 ms, no keyframe packet, shown once at 0. */
function plisAfterShown(rtxTime: number | null, untilMs: number): number[] {
  const r = new KeyframeRequestRule("browser", () => {});
  if (rtxTime !== null) r.nackHistory(rtxTime);
  r.packet(0, true, false);
  r.shown(0);
  const out: number[] = [];
  for (let t = 10; t <= untilMs; t += 10) {
    if (r.poll(t * MS)) out.push(t);
    r.packet(t * MS, false, true);
  }
  return out;
}

test("browser, nothing shown: a PLI every 3 s without rtx-time, every 3 × rtx-time with one", () => {
  assert.deepEqual(plisAfterShown(null, 4000), [3000]);
  assert.deepEqual(plisAfterShown(1000, 4000), [3000]);
  assert.deepEqual(plisAfterShown(100, 1000), [300, 600, 900]);
});

test("browser, before the first frame: the waits and their grid from the start follow rtx-time", () => {
  const dues = (rtxTime: number | null): number[] => {
    const r = new KeyframeRequestRule("browser", () => {});
    if (rtxTime !== null) r.nackHistory(rtxTime);
    r.start(0);
    r.packet(130 * MS, false, false); // the first packet, 130 ms after the stream started
    const out = [r.nextDueNs() / MS];
    assert.equal(r.poll(out[0]! * MS), true);
    out.push(r.nextDueNs() / MS);
    return out;
  };
  assert.deepEqual(dues(null), [200, 400]);
  assert.deepEqual(dues(50), [150, 200]);
});

test("browser: the 'receiving a keyframe' window is rtx-time long with one, 200 ms without", () => {
  /** Whether a PLI goes out by 200 ms: a packet at 0, a keyframe packet at 50 ms, nothing shown. */
  const asks = (rtxTime: number | null): boolean => {
    const r = new KeyframeRequestRule("browser", () => {});
    if (rtxTime !== null) r.nackHistory(rtxTime);
    r.packet(0, false, false);
    r.packet(50 * MS, true, false);
    return r.poll(200 * MS);
  };
  // the timeout at 200 ms finds the keyframe packet 150 ms old: inside 200 ms, a keyframe arriving
  assert.equal(asks(null), false);
  // timeouts at 100 ms (50 ms old: no) and 200 ms (150 ms old, outside 100 ms): a PLI
  assert.equal(asks(100), true);
  // a 300 ms wait: no timeout yet
  assert.equal(asks(300), false);
});

function transceiver(codecs: { mimeType: string; payloadType: number; parameters?: string }[]) {
  return { codecs } as unknown as RTCRtpTransceiver;
}

test("rtxTimeMs: the rtx codec of the first media codec, its rtx-time; −1 without one", () => {
  const vp8 = { mimeType: "video/VP8", payloadType: 96 };
  const h264 = { mimeType: "video/H264", payloadType: 102, parameters: "packetization-mode=1" };
  assert.equal(
    rtxTimeMs(transceiver([vp8, { mimeType: "video/rtx", payloadType: 97, parameters: "apt=96" }])),
    -1,
  );
  assert.equal(
    rtxTimeMs(
      transceiver([vp8, { mimeType: "video/rtx", payloadType: 97, parameters: "apt=96;rtx-time=150" }]),
    ),
    150,
  );
  // the rtx of another codec does not count; spaces and case as SDP writers vary them
  const other = { mimeType: "video/rtx", payloadType: 103, parameters: "apt=102;rtx-time=50" };
  const mine = { mimeType: "video/RTX", payloadType: 97, parameters: " apt=96 ; RTX-TIME=300" };
  assert.equal(rtxTimeMs(transceiver([vp8, h264, other, mine])), 300);
  assert.equal(rtxTimeMs(transceiver([vp8, h264, other])), -1);
  assert.equal(
    rtxTimeMs(
      transceiver([vp8, { mimeType: "video/rtx", payloadType: 97, parameters: "apt=96;rtx-time=x" }]),
    ),
    -1,
  );
  assert.equal(rtxTimeMs(transceiver([vp8])), -1);
  assert.equal(rtxTimeMs(transceiver([])), -1);
});

/** The viewer's rtxTimeMs after a real werift offer/answer whose answer's rtx fmtp gets `extra`. */
async function negotiatedRtxTime(extra: string): Promise<number> {
  const ice = { loopbackOnly: true, includeLoopback: false };
  const server = newPeer(ice, videoCodecs("vp8", { transportCc: false, rtx: true }));
  const viewer = newPeer(ice, videoCodecs("viewer", { transportCc: false, rtx: true }));
  server.addTransceiver("video", { direction: "sendonly" });
  viewer.addTransceiver("video", { direction: "recvonly" });
  try {
    await viewer.setLocalDescription(await viewer.createOffer());
    await server.setRemoteDescription(viewer.localDescription!);
    const answer = await server.createAnswer();
    // the rtx codec's fmtp line (apt=…) of the answer, as a server that sends rtx-time writes it
    const sdp = answer.sdp.replace(/(a=fmtp:\d+ apt=\d+)/, `$1${extra}`);
    await viewer.setRemoteDescription({ type: "answer", sdp });
    return rtxTimeMs(viewer.getTransceivers()[0]!);
  } finally {
    await Promise.all([server.close(), viewer.close()]);
  }
}

test("rtxTimeMs on werift's negotiated transceiver: the answer's rtx-time, −1 without", async () => {
  assert.equal(await negotiatedRtxTime(""), -1);
  assert.equal(await negotiatedRtxTime(";rtx-time=150"), 150);
});
