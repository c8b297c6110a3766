import assert from "node:assert/strict";
import { test } from "node:test";
import { PictureLossIndication, RtcpPacketConverter, RtcpPayloadSpecificFeedback } from "werift";
import { KEYFRAME_MIN_INTERVAL_NS, KeyframeRequests } from "../../src/core/clip/keyframe-requests.ts";
import { keyframeRequestOf } from "../../src/net/rtcp-feedback.ts";
import { serializeNack, serializePli } from "../../src/workers/receive/rtcp-out.ts";

const MS = 1e6;
/** 12 frames, keyframes at 0 and 6 */
const KEYS = Array.from({ length: 12 }, (_, i) => i % 6 === 0);

/** Sends `frames` frames 33 ms apart from index 0; `requests` at the given frames (before the next is chosen). */
function send(kf: KeyframeRequests, frames: number, requests: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0, i = 0; k < frames; k++) {
    out.push(i);
    kf.sent(i);
    if (requests.includes(k)) kf.request("pli");
    i = kf.next(i, k * 33 * MS);
  }
  return out;
}

test("a request cuts the GOP short: the next frame is the clip's next keyframe", () => {
  const kf = new KeyframeRequests(KEYS, true);
  assert.deepEqual(send(kf, 8, [1]), [0, 1, 6, 7, 8, 9, 10, 11]);
  assert.equal(kf.keyframesOnRequest, 1);
  assert.equal(kf.pliReceived, 1);
  assert.equal(kf.waiting, false);
});

test("the next keyframe wraps to the clip's first; a keyframe in its own turn answers a request", () => {
  const kf = new KeyframeRequests(KEYS, true);
  assert.deepEqual(send(kf, 12, [7]), [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]);
  assert.equal(kf.keyframesOnRequest, 1);
  const natural = new KeyframeRequests(KEYS, true);
  // asked after index 5: index 6 is a keyframe in its own turn, nothing is cut short
  assert.deepEqual(send(natural, 8, [5]), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(natural.keyframesOnRequest, 0);
  assert.equal(natural.waiting, false);
});

test("requests inside the minimum interval are held and coalesced into one keyframe after it", () => {
  // 24 frames, one keyframe (index 0): only requests bring keyframes forward
  const kf = new KeyframeRequests(
    Array.from({ length: 24 }, (_, i) => i === 0),
    true,
  );
  // asked after frame 1: index 0 chosen at 33 ms; asked again after frames 2, 3 and 5: held
  // until a choice 300 ms later (at 363 ms, after frame 11), then one keyframe for all three
  const got = send(kf, 15, [1, 2, 3, 5]);
  assert.equal(KEYFRAME_MIN_INTERVAL_NS, 300 * MS);
  assert.deepEqual(got, [0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]);
  assert.equal(kf.keyframesOnRequest, 2);
  assert.equal(kf.pliReceived, 4);
});

test("off: requests are counted, the clip keeps its GOP", () => {
  const kf = new KeyframeRequests(KEYS, false);
  assert.deepEqual(send(kf, 8, [1, 2]), [0, 1, 2, 3, 4, 5, 6, 7]);
  kf.request("fir");
  assert.deepEqual([kf.pliReceived, kf.firReceived, kf.keyframesOnRequest], [2, 1, 0]);
});

test("PLI and FIR are told apart in RTCP; other feedback is no request", () => {
  const [pli] = RtcpPacketConverter.deSerialize(serializePli(3, 4));
  assert.equal(keyframeRequestOf(pli!), "pli");
  // FIR: payload-specific feedback, format 4, one FCI entry (SSRC, sequence number)
  const fir = Buffer.from([0x84, 206, 0, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0]);
  const [f] = RtcpPacketConverter.deSerialize(fir);
  assert.equal(keyframeRequestOf(f!), "fir");
  const [nack] = RtcpPacketConverter.deSerialize(serializeNack(3, 4, [7]));
  assert.equal(keyframeRequestOf(nack!), null);
  const remb = new RtcpPayloadSpecificFeedback({
    feedback: new PictureLossIndication({ senderSsrc: 1, mediaSsrc: 2 }),
  });
  assert.equal(keyframeRequestOf(remb), "pli");
});
