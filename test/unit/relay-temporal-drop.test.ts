// The relay's test hook dropTopLayerEvery (src/main/relay/temporal-drop.ts): every packet of every
// n-th upper-layer frame, by the descriptor's TID; without TIDs, by every second frame.
import assert from "node:assert/strict";
import { test } from "node:test";
import { packetizeVp8 } from "../../src/core/codec/vp8.ts";
import { TemporalDrop } from "../../src/main/relay/temporal-drop.ts";

/** Which of 16 two-packet frames lose their packets, each frame's packets asked about in turn. */
function dropped(layered: boolean, on: (frame: number) => boolean): number[] {
  const drop = new TemporalDrop(2);
  const out: number[] = [];
  let tl0 = 0;
  for (let f = 0; f < 16; f++) {
    if (f % 2 === 0) tl0++;
    const temporal = layered ? { tid: f % 2, sync: f % 2 === 1, tl0PicIdx: tl0 } : undefined;
    const packets = packetizeVp8(new Uint8Array(20).fill(1), 16, f, temporal);
    assert.equal(packets.length, 2);
    const said = packets.map((p) => drop.drop(f * 3000, p, on(f)));
    assert.equal(said[0], said[1], `frame ${f}: both packets alike`);
    if (said[0]) out.push(f);
  }
  return out;
}

test("every 2nd layer-1 frame dropped, whole; the same frames without TIDs", () => {
  assert.deepEqual(
    dropped(true, () => true),
    [3, 7, 11, 15],
  );
  assert.deepEqual(
    dropped(false, () => true),
    [3, 7, 11, 15],
  );
});

test("while the hook is off nothing is dropped, but frames are still counted", () => {
  assert.deepEqual(
    dropped(true, (f) => f >= 8),
    [11, 15],
  );
});
