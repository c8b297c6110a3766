// The WHIP publisher (src/main/publisher/publisher.ts, docs/definitions.md#publisher-pacing) through the built-in relay: pacing, the
// send log it fills, and what a WHEP peer on the far side receives — RTP timestamps that step
// exactly one frame's ticks per frame, across the clip's loop boundary too, with sequence
// numbers that run on and frame bytes that come round in clip order.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Clip, loadClip } from "../../src/core/clip/clip.ts";
import { monoNs, takeWallAnchor } from "../../src/core/clock/clock.ts";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { Publisher } from "../../src/main/publisher/publisher.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import {
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  videoCodecs,
} from "../../src/net/rtc.ts";
import { deleteResource, postOffer } from "../../src/net/sdp-http.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let relay: Relay;
let base = "";
before(async () => {
  relay = new Relay({ ice: ICE });
  base = await relay.listen();
});
after(() => relay.close());

function publisher(stream: string, clip: Clip, sendLog: SendLog | null): Publisher {
  return new Publisher({
    whip: `${base}/${stream}/whip`,
    clip,
    ice: ICE,
    noStamp: false,
    sendLog,
    anchor: takeWallAnchor(),
  });
}

interface Rtp {
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
}

/** A bare WHEP peer on the relay that records every RTP packet it receives. */
async function rawViewer(stream: string): Promise<{ packets: Rtp[]; close: () => Promise<void> }> {
  const pc = newPeer(ICE, videoCodecs("viewer"));
  pc.addTransceiver("video", { direction: "recvonly" });
  const packets: Rtp[] = [];
  pc.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((rtp) => {
      const h = rtp.header;
      packets.push({
        seq: h.sequenceNumber,
        ts: h.timestamp,
        marker: h.marker,
        payload: Uint8Array.from(rtp.payload),
      });
    });
  });
  await pc.setLocalDescription(await pc.createOffer());
  await gatheringComplete(pc, 5000);
  const res = await postOffer(
    `${base}/${stream}/whep`,
    filterCandidates(pc.localDescription?.sdp ?? "", ICE),
    {},
  );
  await pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
  return {
    packets,
    close: async () => {
      await deleteResource(res.location, {});
      await pc.close();
    },
  };
}

test("without a send log: ≥ 20 frames in 1 s, stamped, counters consistent", async () => {
  const clip = loadClip("vp8");
  const p = publisher("nolog", clip, null);
  await p.connect();
  assert.ok(p.result.connectNs > 0);
  assert.equal(p.result.stamped, true, "the relay accepts abs-capture-time");
  const stop = new AbortController();
  const streaming = p.stream(stop.signal);
  await sleep(1000);
  stop.abort();
  const r = await streaming;
  assert.ok(r.framesSent >= 20 && r.framesSent <= 33, `${r.framesSent} frames in 1 s at 30 fps`);
  assert.ok(r.packetsSent >= r.framesSent, `${r.packetsSent} packets`);
  assert.ok(r.bytesSent > r.packetsSent * 4, "payload bytes beyond the descriptors");
  assert.equal(r.loops, 0);
  assert.equal(r.scheduleSlips, 0);
  assert.ok(r.sendingNs >= 0.9e9 && r.sendingNs < 2e9, `sending ${r.sendingNs / 1e6} ms`);
  assert.equal(r.errorKind, undefined);
});

test("with a send log: one entry per frame sent, clip frame 0 logged; RTP steps exactly `ticks` per frame across loops", async () => {
  // a 10-frame loop of the embedded clip: the loop boundary comes round every 333 ms
  const full = loadClip("vp8");
  const N = 10;
  const clip: Clip = { ...full, frames: full.frames.slice(0, N), keyframes: full.keyframes.slice(0, N) };
  const log = SendLog.create(N);
  const p = publisher("log", clip, log);
  await p.connect();
  const stop = new AbortController();
  const streaming = p.stream(stop.signal);
  await relay.ready("log");
  const viewer = await rawViewer("log");
  let r: Awaited<typeof streaming>;
  try {
    // until the viewer has seen three whole loops, at most 6 s
    for (let i = 0; i < 60 && new Set(viewer.packets.map((x) => x.ts)).size < 3 * N + 2; i++)
      await sleep(100);
  } finally {
    stop.abort();
    r = await streaming;
    await viewer.close();
  }

  // the send log
  assert.ok(r.framesSent > 3 * N, `${r.framesSent} frames`);
  assert.equal(log.recorded, r.framesSent, "one entry per frame sent");
  assert.equal(r.loops, Math.floor(r.framesSent / N));
  const now = monoNs();
  const e0 = log.latest(0, now);
  assert.ok(e0 !== null, "clip frame 0 has a send");
  assert.equal(e0.k % N, 0);
  assert.ok(e0.k >= N * (r.loops - 1) && e0.t0Ns <= now);
  const last = log.latest((r.framesSent - 1) % N, now);
  assert.equal(last?.k, r.framesSent - 1, "the last frame's send is the latest of its index");
  assert.ok(log.loopMinNs > 0, "a whole loop closed");

  // what the far side received: frames in order, the clip's bytes coming round
  const pkts = viewer.packets;
  assert.ok(pkts.length > 0, "the viewer received RTP");
  for (let i = 1; i < pkts.length; i++) {
    assert.equal((pkts[i]!.seq - pkts[i - 1]!.seq) & 0xffff, 1, `sequence runs on at packet ${i}`);
  }
  const frames: { ts: number; payloads: Uint8Array[]; marker: boolean }[] = [];
  for (const x of pkts) {
    const f = frames.at(-1);
    if (f && f.ts === x.ts && !f.marker) {
      f.payloads.push(x.payload);
      f.marker = x.marker;
    } else {
      frames.push({ ts: x.ts, payloads: [x.payload], marker: x.marker });
    }
  }
  frames.shift(); // the viewer may have joined inside the first
  if (!frames.at(-1)?.marker) frames.pop(); // and left inside the last
  const indexOf = (payloads: Uint8Array[]): number => {
    const pieces = depacketizeVp8(payloads);
    assert.ok(pieces !== null);
    const bytes = Buffer.concat(pieces);
    return clip.frames.findIndex((f) => Buffer.compare(Buffer.from(f), bytes) === 0);
  };
  let wraps = 0;
  let prevIndex = indexOf(frames[0]!.payloads);
  assert.ok(prevIndex >= 0, "the first whole frame is a clip frame");
  for (let i = 1; i < frames.length; i++) {
    const step = (frames[i]!.ts - frames[i - 1]!.ts) >>> 0;
    const index = indexOf(frames[i]!.payloads);
    assert.equal(index, (prevIndex + 1) % N, `frame ${i} follows clip frame ${prevIndex}`);
    assert.equal(step, clip.ticks, `RTP timestamp step before clip frame ${index}`);
    if (index === 0) wraps++;
    prevIndex = index;
  }
  assert.ok(wraps >= 2, `${wraps} loop boundaries crossed`);
});
