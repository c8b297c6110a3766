// Simulcast (docs/definitions.md#simulcast-publisher, docs/definitions.md#relay-simulcast): the
// publisher's one WHIP offer with three layers, what a werift answerer receives of each layer (its
// own SSRC, its rid on every packet, its own sequence, the layer's own frames), the send log of
// every layer, a keyframe request naming one layer's SSRC; then the built-in relay forwarding the
// highest layer as one stream, its keyframe requests on that layer's SSRC.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { layerOfIndex, loadSimulcastClips, type SimulcastClips } from "../../src/core/clip/simulcast.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { depacketizeVp8 } from "../../src/core/codec/vp8.ts";
import { ClipTable, createHasher, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { LAYER_NO_FRAME } from "../../src/core/report/layer-delay.ts";
import { Publisher } from "../../src/main/publisher/publisher.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import {
  filterCandidates,
  gatheringComplete,
  type IceOptions,
  newPeer,
  RID_URI,
  SIMULCAST_EXTENSIONS,
  videoCodecs,
} from "../../src/net/rtc.ts";
import { deleteResource, postOffer } from "../../src/net/sdp-http.ts";
import type { RTCPeerConnection } from "../../src/net/werift/api.ts";
import { assertComparableUnlessClientBound, fingerprintBlock, runThroughRelay } from "./harness.ts";

const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Rtp {
  rid: string | undefined;
  ssrc: number;
  seq: number;
  ts: number;
  marker: boolean;
  payload: Uint8Array;
}

let hasher: Hasher;
let sc: SimulcastClips;
let table: ClipTable;
before(async () => {
  hasher = await createHasher();
  sc = loadSimulcastClips("vp8");
  table = new ClipTable(hasher, { ...sc.combined });
});

/** Whole frames of one stream of packets (by timestamp and marker), the first and last dropped. */
function framesOf(pkts: readonly Rtp[]): { ts: number; payloads: Uint8Array[] }[] {
  const frames: { ts: number; payloads: Uint8Array[]; marker: boolean }[] = [];
  for (const x of pkts) {
    const f = frames.at(-1);
    if (f && f.ts === x.ts && !f.marker) {
      f.payloads.push(x.payload);
      f.marker = x.marker;
    } else frames.push({ ts: x.ts, payloads: [x.payload], marker: x.marker });
  }
  frames.shift();
  if (!frames.at(-1)?.marker) frames.pop();
  return frames;
}

/** The layer and clip index a received frame's fingerprint names, or null. */
function layerOfFrame(payloads: Uint8Array[]): { layer: number; i: number } | null {
  const pieces = depacketizeVp8(payloads);
  if (pieces === null) return null;
  const fp = hasher.fingerprint("vp8", pieces);
  const hit = fp === null ? null : table.lookup(fp);
  return hit?.status === "unique" ? layerOfIndex(hit.index, sc.layerFrames) : null;
}

/** A WHIP endpoint on a werift peer that takes simulcast and records every layer's packets. */
async function whipAnswerer(): Promise<{
  url: string;
  packets: Rtp[];
  pc: () => RTCPeerConnection;
  close: () => Promise<void>;
}> {
  const packets: Rtp[] = [];
  let peer: RTCPeerConnection | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      if (req.method === "DELETE") return void res.writeHead(200).end();
      const pc = newPeer(ICE, videoCodecs("viewer"), SIMULCAST_EXTENSIONS);
      peer = pc;
      pc.onTrack.subscribe(() => {
        const rx = pc.getTransceivers()[0]?.receiver;
        for (const track of rx?.tracks ?? [])
          track.onReceiveRtp.subscribe((rtp, ext) => {
            const rid = ext?.[RID_URI];
            packets.push({
              rid: typeof rid === "string" ? rid : undefined,
              ssrc: rtp.header.ssrc,
              seq: rtp.header.sequenceNumber,
              ts: rtp.header.timestamp,
              marker: rtp.header.marker,
              payload: Uint8Array.from(rtp.payload),
            });
          });
      });
      await pc.setRemoteDescription({ type: "offer", sdp: Buffer.concat(chunks).toString() });
      await pc.setLocalDescription(await pc.createAnswer());
      await gatheringComplete(pc, 5000);
      res.writeHead(201, { "content-type": "application/sdp", location: "/session/1" });
      res.end(filterCandidates(pc.localDescription?.sdp ?? "", ICE));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/whip`,
    packets,
    pc: () => peer as unknown as RTCPeerConnection,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await (peer as RTCPeerConnection | null)?.close();
    },
  };
}

function simulcastPublisher(whip: string, log: SendLog | null): Publisher {
  return new Publisher({
    whip,
    clip: sc.combined,
    simulcast: sc,
    ice: ICE,
    noStamp: false,
    sendLog: log,
    anchor: takeWallAnchor(),
  });
}

test("the publisher sends three layers: own SSRCs, rid on every packet, each layer's own frames, one send log", async () => {
  const server = await whipAnswerer();
  const log = SendLog.create(sc.combined.frames.length);
  const p = simulcastPublisher(server.url, log);
  try {
    await p.connect();
    const offer = server.pc().remoteDescription?.sdp ?? "";
    assert.match(offer, /^a=rid:l send\r?$/m);
    assert.match(offer, /^a=simulcast:send l;m;h\r?$/m);
    assert.match(offer, /^a=extmap:\d+ urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r?$/m);
    assert.match(offer, /^a=extmap:\d+ urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r?$/m);
    assert.doesNotMatch(offer, /^a=ssrc:/m, "layers are named by rid only, as a browser's are");
    const stop = new AbortController();
    const streaming = p.stream(stop.signal);
    await sleep(700);
    // a PLI naming layer m's SSRC: m cuts its GOP short, l and h do not
    const m = p.layers?.layers[1];
    assert.ok(m !== undefined);
    await server.pc().getTransceivers()[0]?.receiver.sendRtcpPLI(m.ssrc);
    await sleep(800);
    stop.abort();
    const r = await streaming;

    const layers = p.layers?.layers ?? [];
    assert.deepEqual(
      layers.map((l) => l.requests.pliReceived),
      [0, 1, 0],
    );
    assert.deepEqual(
      layers.map((l) => l.requests.keyframesOnRequest),
      [0, 1, 0],
    );
    assert.equal(r.pliReceived, 1);
    assert.equal(r.keyframesOnRequest, 1);
    assert.equal(new Set(layers.map((l) => l.ssrc)).size, 3);
    // the send log: layer j's frame of absolute frame f is k = 3f + j, its index on layer j
    assert.equal(log.recorded, r.framesSent);
    assert.equal(r.framesSent % 3, 0);
    for (let k = 0; k < log.recorded; k++)
      assert.equal(layerOfIndex(log.indexAt(k), sc.layerFrames).layer, k % 3, `send log entry ${k}`);
    // what the answerer received, layer by layer
    sc.layers.forEach(({ rid }, j) => {
      const pkts = server.packets.filter((x) => x.rid === rid);
      assert.ok(pkts.length > 20, `layer ${rid}: ${pkts.length} packets`);
      assert.deepEqual(
        [...new Set(pkts.map((x) => x.ssrc))],
        [layers[j]?.ssrc],
        `layer ${rid}: its own SSRC`,
      );
      for (let n = 1; n < pkts.length; n++)
        assert.equal((pkts[n]!.seq - pkts[n - 1]!.seq) & 0xffff, 1, `layer ${rid}: sequence runs on`);
      const frames = framesOf(pkts);
      assert.ok(frames.length > 30, `layer ${rid}: ${frames.length} frames`);
      for (const f of frames)
        assert.equal(layerOfFrame(f.payloads)?.layer, j, `layer ${rid}: its own frames`);
    });
    assert.equal(server.packets.filter((x) => x.rid === undefined).length, 0, "every packet names its rid");
    // every layer's frame f has the same RTP timestamp
    const tsOf = (rid: string) => new Set(server.packets.filter((x) => x.rid === rid).map((x) => x.ts));
    const both = [...tsOf("h")].filter((ts) => tsOf("l").has(ts));
    assert.ok(both.length > 30, `${both.length} timestamps on both l and h`);
  } finally {
    await p.close();
    await server.close();
  }
});

let relay: Relay;
let base = "";
before(async () => {
  relay = new Relay({ ice: ICE });
  base = await relay.listen();
});
after(() => relay.close());

test("the relay forwards the highest layer to a leg as one stream, and asks that layer for keyframes", async () => {
  const p = simulcastPublisher(`${base}/sc/whip`, null);
  await p.connect();
  const stop = new AbortController();
  const streaming = p.stream(stop.signal);
  await relay.ready("sc");
  const pc = newPeer(ICE, videoCodecs("viewer"));
  const tr = pc.addTransceiver("video", { direction: "recvonly" });
  const packets: Rtp[] = [];
  pc.onTrack.subscribe((track) =>
    track.onReceiveRtp.subscribe((rtp) =>
      packets.push({
        rid: undefined,
        ssrc: rtp.header.ssrc,
        seq: rtp.header.sequenceNumber,
        ts: rtp.header.timestamp,
        marker: rtp.header.marker,
        payload: Uint8Array.from(rtp.payload),
      }),
    ),
  );
  await pc.setLocalDescription(await pc.createOffer());
  await gatheringComplete(pc, 5000);
  const res = await postOffer(`${base}/sc/whep`, filterCandidates(pc.localDescription?.sdp ?? "", ICE), {});
  await pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
  try {
    for (let i = 0; i < 30 && packets.length < 50; i++) await sleep(100);
    const ssrc = packets[0]?.ssrc;
    assert.ok(ssrc !== undefined, "the leg received RTP");
    await tr.receiver.sendRtcpPLI(ssrc);
    await sleep(800);
  } finally {
    stop.abort();
    await streaming;
    await deleteResource(res.location, {});
    await pc.close();
  }
  assert.equal(relay.keyframeRequests("sc"), 1);
  assert.deepEqual(
    p.layers?.layers.map((l) => l.requests.pliReceived),
    [0, 0, 1],
    "the request went to layer h's SSRC",
  );
  assert.equal(new Set(packets.map((x) => x.ssrc)).size, 1, "one SSRC on the leg");
  for (let n = 1; n < packets.length; n++)
    assert.equal((packets[n]!.seq - packets[n - 1]!.seq) & 0xffff, 1, `the leg's sequence runs on at ${n}`);
  const frames = framesOf(packets);
  assert.ok(frames.length > 20, `${frames.length} frames`);
  for (const f of frames) assert.equal(layerOfFrame(f.payloads)?.layer, 2, "every frame is layer h's");
  for (let n = 1; n < frames.length; n++)
    assert.equal((frames[n]!.ts - frames[n - 1]!.ts) >>> 0, 3000, "one frame's ticks per frame");
});

test("a run with simulcast through the relay: every viewer's frames are layer h's, matched to h's sends", async () => {
  const { report: r, logLines } = await runThroughRelay({}, { simulcast: ["l", "m", "h"], viewers: 4 });
  assert.deepEqual(r.scenario.simulcast, ["l", "m", "h"]);
  assert.ok(logLines.some((l) => l.includes("publishing vp8 simulcast (l, m, h)")));
  const viewers = r.viewers ?? [];
  assert.equal(viewers.length, 4);
  for (const v of viewers) {
    assert.equal(v.joined, true, `viewer ${v.id} joined`);
    const [l, m, h] = v.layers ?? [];
    assert.deepEqual(
      [l, m],
      [
        { rid: "l", samples: 0, timeMs: 0, reason: LAYER_NO_FRAME },
        { rid: "m", samples: 0, timeMs: 0, reason: LAYER_NO_FRAME },
      ],
      `viewer ${v.id}`,
    );
    // every viewer received h from its first frame to its last: most of the 3 s hold (a join
    // takes up to a few hundred ms, longer on a loaded machine), never more than the run
    const onH = h?.timeMs ?? 0;
    assert.ok(onH > 1000 && onH < 6000, `viewer ${v.id}: ${onH} ms on h`);
    assert.equal(h?.rid, "h");
    const fp = v.oneWayDelay[0];
    assert.ok((h?.samples ?? 0) > 30, `viewer ${v.id}: ${h?.samples} samples on h`);
    assert.equal(h?.samples, fp?.samples, `viewer ${v.id}: every sample is on h`);
    assert.equal(h?.delayMs?.p95, fp?.ms?.p95, `viewer ${v.id}: h's delay is the viewer's`);
  }
  const fp = fingerprintBlock(r);
  assert.equal(fp.loopFrames, 360, "one loop of three layers");
  assert.equal(fp.duplicateFrames, 0);
  assert.equal(fp.unmatchedFrames, 0);
  assert.equal(fp.invalid, 0);
  assert.ok(fp.samples > 120, `${fp.samples} samples`);
  const p50 = fp.ms?.p50 ?? -1;
  assert.ok(p50 > 0 && p50 < 50, `p50 ${p50} ms on loopback`);
  assertComparableUnlessClientBound(r, fp);
  assert.ok(r.method.some((x) => x.startsWith("Simulcast: the publisher sends 3 layers")));
  assert.equal(r.publisher?.framesSent !== undefined && r.publisher.framesSent % 3, 0);
});
