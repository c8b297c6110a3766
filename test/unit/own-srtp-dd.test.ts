// Our SRTP stage (lean and arena paths) and werift's with the dependency descriptor negotiated
// (docs/definitions.md#decodable-frames): each packet's descriptor reaches the render model before
// the packet does, so a stream whose lost frame nothing references costs one frame (the generic
// finder); without the extension id nothing is read and the same stream goes to the frame-id finder.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RtpHeader } from "werift";
import { ddSender, ddStage, deltaDescriptor, keyframeDescriptor } from "../../bench/dd-writer.ts";
import { plainPipeline } from "../../bench/plain-pipeline.ts";
import { DEPENDENCY_DESCRIPTOR_URI } from "../../src/net/rtc.ts";
import type { MediaStreamTrack } from "../../src/net/werift/api.ts";
import { NackGenerator } from "../../src/workers/receive/nack.ts";
import { NackSender } from "../../src/workers/receive/nack-sender.ts";
import { TwccSender } from "../../src/workers/receive/twcc-sender.ts";
import { WeriftSrtpStage } from "../../src/workers/receive/werift-stage.ts";

const MS = 1e6;
const DD_ID = 5;
const N = 60;

/** Frames 0..N−1 of one packet each (a keyframe at 0 and 30), L1T2 descriptors, frame `lose` lost. */
function run(
  inPlace: boolean,
  ddId: number,
  lose: number,
): { finder: string; shown: number; descriptors: number } {
  const tx = ddSender();
  const pipeline = plainPipeline("vp8");
  let descriptors = 0;
  const rx = ddStage(pipeline, ddId, inPlace, (seq, b, off, len) => {
    descriptors++;
    pipeline.render.model?.descriptor(seq, b, off, len);
  });
  for (let i = 0; i < N; i++) {
    if (i === lose) continue;
    const key = i % 30 === 0;
    const h = new RtpHeader({ sequenceNumber: 100 + i, timestamp: 3000 * i, payloadType: 96, ssrc: 7 });
    h.marker = true;
    h.extension = true;
    const dd = key ? keyframeDescriptor(i, true) : deltaDescriptor(i, i % 2 === 0 ? 1 : 2, true, true);
    h.extensions = [{ id: DD_ID, payload: Buffer.from(dd) }];
    // VP8: S set, PictureID 7 bits (so without the descriptor the frame-id finder reads it)
    const w = tx.encrypt(Buffer.from([0x90, 0x80, i, key ? 0 : 1, 1, 2]), h);
    rx.receive(Buffer.from(w), w.length, ((i + 1) * 1000 * MS) / 30);
  }
  const r = pipeline.finish(((N + 2) * 1000 * MS) / 30);
  return { finder: r.render.finder, shown: r.render.framesShown, descriptors };
}

for (const inPlace of [false, true]) {
  test(`the dependency descriptor reaches the generic finder${inPlace ? " (in place)" : ""}`, () => {
    const all = run(inPlace, DD_ID, -1);
    const r = run(inPlace, DD_ID, 11);
    assert.equal(r.descriptors, N - 1);
    assert.deepEqual([all.finder, r.finder], ["generic", "generic"]);
    assert.equal(all.shown, N);
    assert.equal(r.shown, N - 1);
    // not negotiated: nothing read; the frame-id finder waits for 11 until the keyframe at 30
    const offAll = run(inPlace, 0, -1);
    const off = run(inPlace, 0, 11);
    assert.deepEqual([off.descriptors, off.finder, offAll.shown], [0, "frame-id", all.shown]);
    assert.equal(off.shown, N - 1 - 18);
  });
}

test("werift's path: the descriptor from werift's extension map, only where negotiated", () => {
  for (const negotiated of [true, false]) {
    const pipeline = plainPipeline("vp8");
    const nack = new NackSender(
      new NackGenerator({}),
      () => {},
      1,
      () => {},
      () => null,
    );
    const stage = new WeriftSrtpStage(
      nack,
      new TwccSender(
        () => {},
        1,
        () => {},
      ),
      () => {},
    );
    type Listener = (rtp: unknown, ext: Record<string, unknown>) => void;
    let listener: Listener = () => {};
    const track = { onReceiveRtp: { subscribe: (f: Listener) => (listener = f) } };
    let descriptors = 0;
    const onDescriptor = (seq: number, b: Uint8Array, off: number, len: number): void => {
      descriptors++;
      pipeline.render.model?.descriptor(seq, b, off, len);
    };
    stage.bind(null, {
      receive: (p) => pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs),
      close: () => {},
    });
    stage.takeVideo(track as unknown as MediaStreamTrack, false, [], negotiated ? onDescriptor : null);
    for (let i = 0; i < 10; i++) {
      const key = i === 0;
      const dd = key ? keyframeDescriptor(i, true) : deltaDescriptor(i, i % 2 === 0 ? 1 : 2, true, true);
      const header = { ssrc: 7, sequenceNumber: 100 + i, timestamp: 3000 * i, marker: true };
      const payload = Buffer.from([0x90, 0x80, i, key ? 0 : 1, 1, 2]);
      listener({ header, payload }, { [DEPENDENCY_DESCRIPTOR_URI]: Buffer.from(dd) });
    }
    const r = pipeline.finish(400 * MS).render;
    assert.deepEqual([descriptors, r.finder], negotiated ? [10, "generic"] : [0, "frame-id"]);
  }
});
