// The audio track's pure parts (docs/definitions.md#audio-track): each packet fingerprinted whole
// and matched to its send in the audio send log across loops, loss and the excluded window, the
// A/V offset per second (docs/definitions.md#audio-video-offset), and the report's blocks.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AudioPipeline, AudioTable } from "../../src/core/delay/audio-pipeline.ts";
import { AvOffset } from "../../src/core/delay/av-offset.ts";
import { createHasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { NOT_ASKED, pooledAudio, viewerAudio } from "../../src/core/report/audio.ts";
import { decodeAudio } from "../../src/core/report/decode.ts";
import { audioSection } from "../../src/core/report/html-audio.ts";
import { audioMarkdown } from "../../src/core/report/markdown-audio.ts";
import type { Report } from "../../src/core/report/types.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";

const MS = 1e6;
const N = 5;
const packets = Array.from({ length: N }, (_, i) => Uint8Array.of(0xf8, i, 2 * i + 1));

async function setup(excludeFirstNs = 0) {
  const hasher = await createHasher();
  const table = new AudioTable(
    packets.map((p) => hasher.packetFingerprint(p)),
    960,
  );
  const log = SendLog.create(N);
  const offset = new AvOffset(0);
  const p = new AudioPipeline({
    postNs: 0,
    excludeFirstNs,
    stallNs: 500 * MS,
    hasher,
    table,
    sendLog: log,
    offset,
  });
  return { p, log, offset };
}

describe("audio pipeline", () => {
  test("every packet matched to its own send across three loops: delay, no loss", async () => {
    const { p, log } = await setup();
    for (let k = 0; k < 3 * N; k++) {
      const t0 = 1000 * MS + k * 20 * MS;
      log.record(k, t0);
      p.onPacket(100 + k, 7000 + 960 * k, k === 0, packets[k % N]!, t0 + 3 * MS);
    }
    const r = p.finish([]);
    assert.equal(r.matched, true);
    assert.equal(r.rtp.received, 3 * N);
    assert.equal(r.rtp.lost, 0);
    assert.equal(r.samples, 3 * N);
    assert.equal(r.delayHist.minNs, 3 * MS);
    assert.equal(r.delayHist.maxNs, 3 * MS);
    assert.equal(r.firstAudioNs, 1003 * MS);
  });

  test("a lost packet counts as lost; one not in the clip as unmatched; the first window is excluded", async () => {
    const { p, log } = await setup(30 * MS);
    for (let k = 0; k < 2 * N; k++) log.record(k, k * 20 * MS);
    for (let k = 0; k < 2 * N; k++) {
      if (k === 6) continue; // lost
      const payload = k === 8 ? Uint8Array.of(0xf8, 99) : packets[k % N]!;
      p.onPacket(k, 960 * k, false, payload, k * 20 * MS + MS);
    }
    const r = p.finish([]);
    assert.equal(r.rtp.lost, 1);
    assert.equal(r.excludedPackets, 2, "packets 0 and 1 arrived within 30 ms of the first");
    assert.equal(r.unmatchedPackets, 1);
    assert.equal(r.samples, 2 * N - 1 - 2 - 1);
    const v = viewerAudio(decodeAudio(r));
    assert.equal(v.available, true);
    assert.equal(v.packetsLost, 1);
    assert.equal(v.lossPercent, 10, "1 of the 10 expected");
    assert.equal(pooledAudio(true, [decodeAudio(r)]).lossPercentTotal, 10);
    assert.equal(v.oneWayDelay.available, true);
    assert.equal(v.oneWayDelay.ms?.p50, 1);
  });

  test("a packet whose send is not logged yet gives no sample", async () => {
    const { p } = await setup();
    p.onPacket(1, 960, false, packets[1]!, 5 * MS);
    const r = p.finish([]);
    assert.equal(r.samples, 0);
    assert.equal(r.invalid, 1);
    assert.equal(viewerAudio(decodeAudio(r)).oneWayDelay.reason, "no audio packet was matched to its send");
  });
});

describe("A/V offset", () => {
  test("per second of send: mean audio delay − mean video delay, seconds with both tracks only", () => {
    const o = new AvOffset(1000 * MS);
    // second 0: audio 10, 12 ms; video 5 ms → +6 ms
    o.audioSample(1100 * MS, 10 * MS);
    o.audioSample(1300 * MS, 12 * MS);
    o.videoSample(1200 * MS, 5 * MS);
    // second 1: video only
    o.videoSample(2500 * MS, 5 * MS);
    // second 2: audio 4 ms, video 8 and 10 ms → −5 ms; binned by send (t1 − delay)
    o.audioSample(3004 * MS, 4 * MS);
    o.videoSample(3500 * MS, 8 * MS);
    o.videoSample(3900 * MS, 10 * MS);
    assert.deepEqual(o.offsetsNs(), [6 * MS, -5 * MS]);
  });
});

describe("audio in the report", () => {
  test("unavailable, with the reason, when not asked or nothing arrived", () => {
    assert.equal(pooledAudio(false, []).reason, NOT_ASKED);
    assert.equal(pooledAudio(false, []).available, false);
    assert.equal(pooledAudio(true, [undefined]).reason, "no audio packet arrived");
    assert.equal(viewerAudio(undefined).reason, "the viewer received no audio track");
    // nothing expected, so no loss measured: null beside the block's reason, never a 0
    assert.equal(pooledAudio(false, []).lossPercentTotal, null);
    assert.equal(pooledAudio(true, [undefined]).lossPercentTotal, null);
    assert.equal(viewerAudio(undefined).lossPercent, null);
  });

  test("the audio key is parsed, and omitted when false", () => {
    const base = '{"whep":"http://h/whep","viewers":1,"holdSeconds":1';
    assert.equal(parseScenario(`${base},"audio":true}`).audio, true);
    assert.equal(parseScenario(`${base},"audio":false}`).audio, undefined);
    assert.throws(() => parseScenario(`${base},"audio":1}`), /audio/);
  });

  test("the Markdown and HTML sections: pooled figures, a row per viewer, nothing without audio", async () => {
    const { p, log } = await setup();
    for (let k = 0; k < 3 * N; k++) {
      log.record(k, k * 20 * MS);
      p.onPacket(k, 960 * k, false, packets[k % N]!, k * 20 * MS + 3 * MS);
    }
    const rec = p.finish([-MS, -2 * MS]);
    const r = {
      scenario: { audio: true },
      publisher: { audio: { packetsSent: 15, bytesSent: 45, loops: 3, scheduleSlips: 0 } },
      aggregate: { audio: pooledAudio(true, [decodeAudio(rec)]) },
      viewers: [{ id: 0, audio: viewerAudio(decodeAudio(rec)) }],
    } as unknown as Report;
    const md = audioMarkdown(r).join("\n");
    assert.match(md, /^## Audio$/m);
    assert.match(md, /15 sent; 1 viewers received audio: 15 packets, 0 lost \(0\.00%\)/);
    assert.match(md, /\| delay per packet \(send → arrival\) \| 15 \| 3\.0 ms \|/);
    assert.match(md, /\| A\/V offset, per viewer-second \| 2 \| -2\.0 ms \|/);
    assert.match(md, /^\| 0 \| 15 \| 0 \| [\d.]+ ms \| 3\.0 ms \| -2\.0 ms \|$/m);
    assert.match(audioSection(r), /<h2>Audio<\/h2>.*3\.0 ms/s);
    const none = {
      scenario: {},
      aggregate: { audio: pooledAudio(false, []) },
      viewers: [],
    } as unknown as Report;
    assert.deepEqual(audioMarkdown(none), []);
    assert.equal(audioSection(none), "");
  });
});
