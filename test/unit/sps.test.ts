// H.264 SPS timing (docs/definitions.md#h264-annex-b-clips): the frame duration read from VUI timing_info of synthetic SPSs
// (baseline, high with scaling matrices, POC type 1 + cropping + Extended_SAR), the specific
// errors, and emulation-prevention removal.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { spsTicks } from "../../src/core/clip/clip.ts";
import { unescapeRbsp } from "../../src/core/clip/sps.ts";
import { BitWriter, hex, type SpsOpts, sps, spsNal, throwsClip, ticksOf } from "./clip-helpers.ts";

describe("spsTicks", () => {
  test("baseline at 30 / 25 / 29.97 / 60 fps", () => {
    assert.equal(ticksOf({ timing: [1, 60] }), 3000);
    assert.equal(ticksOf({ timing: [1, 50] }), 3600);
    assert.equal(ticksOf({ timing: [1001, 60000] }), 3003);
    assert.equal(ticksOf({ timing: [1, 120] }), 1500);
  });

  test("high profile with a scaling matrix (delta_scale rule incl. an early stop)", () => {
    const scaling = (w: BitWriter, lists: number): void => {
      for (let i = 0; i < lists; i++) {
        if (i % 2 === 1) {
          w.u(1, 0);
          continue;
        }
        w.u(1, 1);
        const size = i < 6 ? 16 : 64;
        if (i === 2) {
          w.se(-8); // next = 0 at once: the rest of the list is implied
          continue;
        }
        for (let j = 0; j < size; j++) w.se(j % 3 === 0 ? 5 : -2);
      }
    };
    assert.equal(ticksOf({ profile: 100, scaling, timing: [1, 50] }), 3600);
    assert.equal(ticksOf({ profile: 100, timing: [1, 60] }), 3000);
    // 4:4:4 with a separate colour plane bit and 12 lists
    assert.equal(ticksOf({ profile: 244, chroma: 3, scaling, timing: [1001, 60000] }), 3003);
  });

  test("POC type 1 + cropping + Extended_SAR + signal type + chroma location", () => {
    const o: SpsOpts = { pocType: 1, crop: true, aspect: "extended", signal: true, chromaLoc: true };
    assert.equal(ticksOf({ ...o, timing: [1, 120] }), 1500);
    assert.equal(ticksOf({ pocType: 2, aspect: "idc", timing: [1, 60] }), 3000);
  });

  test("no VUI, no timing, truncated, bad timing values", () => {
    const NO = "h264: the SPS carries no frame rate (VUI timing_info); give it with --fps";
    throwsClip(() => ticksOf({ vui: false }), NO);
    throwsClip(() => ticksOf({ timing: null, signal: true }), NO);
    const full = sps({ timing: [1, 60] }).rbsp(false);
    for (const cut of [0, 1, 3, 6, full.length - 5, full.length - 1]) {
      throwsClip(() => spsTicks(spsNal(full.subarray(0, cut))), "h264: the SPS ends before its timing_info");
    }
    throwsClip(
      () => ticksOf({ timing: [0, 60] }),
      "h264: SPS timing 60/0 is not a frame rate; give it with --fps",
    );
    throwsClip(
      () => ticksOf({ timing: [1, 7] }),
      "h264: SPS frame rate 7/2 is not a whole number of 90 kHz ticks; give it with --fps",
    );
    throwsClip(() => spsTicks(hex(0x68, 1, 2)), "h264: not an SPS NAL unit");
    const longCode = new BitWriter().u(8, 66).u(8, 0).u(8, 31).u(32, 0).u(8, 0xff).rbsp();
    throwsClip(() => spsTicks(spsNal(longCode)), "h264: an Exp-Golomb code in the SPS is too long");
  });

  test("emulation-prevention bytes are removed before parsing", () => {
    assert.deepEqual([...unescapeRbsp(hex(0, 0, 3, 1, 0, 0, 3, 0, 3, 0, 0, 3))], [0, 0, 1, 0, 0, 0, 3, 0, 0]);
    assert.deepEqual([...unescapeRbsp(hex(0, 3, 0, 0, 0, 3))], [0, 3, 0, 0, 0]);
    // num_units_in_tick = 1 is 31 zero bits then a one: whatever the alignment the RBSP holds
    // 00 00 00, so the NAL carries an emulation-prevention byte inside the timing fields.
    const rbsp = sps({ pocType: 1, crop: true, timing: [1, 60] }).rbsp();
    const nal = spsNal(rbsp);
    assert.ok(nal.length > rbsp.length + 1, "emulation-prevention bytes inserted");
    assert.equal(spsTicks(nal), 3000);
    const at = nal.findIndex((c, i) => c === 3 && nal[i - 1] === 0 && nal[i - 2] === 0);
    assert.ok(
      at > rbsp.length - 10,
      "the escape sits in the timing fields, so a parse that kept it would misread them",
    );
    const raw = Uint8Array.from([0x67, ...rbsp]);
    assert.equal(spsTicks(raw), 3000);
  });
});
