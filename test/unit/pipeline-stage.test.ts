// The receive chain's shape (src/workers/receive/stages.ts): the last stage, PipelineStage —
// packets reach the viewer's pipeline once it exists, counted, and none that arrived after the
// viewer's end does, while one that arrived before it and is processed later still does — and
// foldChain, which makes a plan's stages innermost first and closes each once, the head first —
// and the audio track's last stage.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";
import {
  AudioStage,
  type ChainPlan,
  foldChain,
  type PacketStage,
  PipelineStage,
  ReceivedPacket,
  type ReceiveStage,
  type SrtpStart,
} from "../../src/workers/receive/stages.ts";

function packet(seq: number, arrivalNs: number, payload: Uint8Array): ReceivedPacket {
  const p = new ReceivedPacket();
  p.seq = seq;
  p.arrivalNs = arrivalNs;
  p.payload = payload;
  return p;
}

test("the pipeline's feed counts what it hands on and stops at the viewer's end", () => {
  const fed: number[] = [];
  const pipeline = {
    onPacket: (seq: number) => {
      fed.push(seq);
    },
  } as unknown as ViewerPipeline;
  const counters = { packets: 0, bytes: 0 };
  let after = 0;
  const feed = new PipelineStage({ counters, afterPacket: () => after++ });
  const payload = new Uint8Array(10);
  feed.receive(packet(1, 1_000, payload));
  assert.deepEqual(fed, [], "nothing before the pipeline exists");
  feed.feed(pipeline);
  feed.receive(packet(2, 2_000, payload));
  feed.stop(3_000);
  feed.receive(packet(3, 3_000, payload)); // arrived at the end, processed after it
  feed.receive(packet(4, 3_001, payload)); // arrived after the end
  assert.deepEqual(fed, [2, 3]);
  assert.deepEqual(counters, { packets: 2, bytes: 20 });
  assert.equal(after, 2);
  feed.close();
  feed.receive(packet(5, 2_500, payload)); // before the end that was set: still the viewer's
  assert.deepEqual(fed, [2, 3, 5], "a close keeps the end that was set");
});

test("a closed feed without an end takes nothing that arrives after its close", () => {
  const fed: number[] = [];
  const feed = new PipelineStage({ counters: { packets: 0, bytes: 0 }, afterPacket: () => {} });
  feed.feed({ onPacket: (seq: number) => fed.push(seq) } as unknown as ViewerPipeline);
  feed.receive(packet(1, 0, new Uint8Array(1)));
  feed.close();
  feed.receive(packet(2, Number.MAX_SAFE_INTEGER, new Uint8Array(1)));
  assert.deepEqual(fed, [1]);
});

test("foldChain makes the list innermost first, hands each its next and closes each once, head first", () => {
  const log: string[] = [];
  const start: SrtpStart = { srtp: "werift", dispatch: null, sendRtcp: () => {} };
  const last: PacketStage = {
    receive: (p) => log.push(`last ${p.seq}`),
    close: () => log.push("close last"),
  };
  const rtpPacket = new ReceivedPacket();
  const plan: ChainPlan = {
    datagram: [
      (next, s) => {
        assert.equal(s, start);
        log.push("make outer");
        return {
          receive: (d, n, at) => next.receive(d, n, at + 1),
          close: () => log.push("close outer"),
        };
      },
      // a stage with nothing to do hands back its next: it is not closed twice
      (next) => {
        log.push("make transparent");
        return next;
      },
    ],
    rtp: (next) => {
      log.push("make rtp");
      const rtp: ReceiveStage = {
        receive: (d, n, at) => {
          rtpPacket.seq = d.readUInt16BE(0) + n;
          rtpPacket.arrivalNs = at;
          next.receive(rtpPacket);
        },
        close: () => log.push("close rtp"),
      };
      return rtp;
    },
    last,
    audio: { receive: () => {}, close: () => log.push("close audio") },
  };
  const chain = foldChain(plan, start);
  assert.deepEqual(log, ["make rtp", "make transparent", "make outer"]);
  chain.head.receive(Buffer.from([0, 7]), 2, 10);
  assert.equal(rtpPacket.arrivalNs, 11, "through the outer stage first");
  chain.close();
  chain.close();
  assert.deepEqual(log.slice(3), ["last 9", "close outer", "close rtp", "close last", "close audio"]);
});

test("the audio track's last stage hands each packet to the viewer's sink until it closes", () => {
  const got: number[][] = [];
  const audio = new AudioStage((seq, ts, marker, payload, arrivalNs) => {
    got.push([seq, ts, marker ? 1 : 0, payload.length, arrivalNs]);
  });
  const p = new ReceivedPacket().set(7, 960, true, new Uint8Array(3), 5_000, -1);
  audio.receive(p);
  audio.close();
  audio.receive(p.set(8, 1920, false, new Uint8Array(4), 6_000, -1));
  assert.deepEqual(got, [[7, 960, 1, 3, 5_000]]);
});
