// A generator of well-formed H.264 SPS NAL units with random field values (H.264 clause 7.3.2.1.1,
// Annex E.1.1), written bit by bit with emulation prevention, for the SPS reader's oracle
// property: the timing_info written is the timing_info read.
import fc from "fast-check";
import { addEmulationPrevention, BitWriter } from "../unit/clip-helpers.ts";

export { addEmulationPrevention as escapeRbsp } from "../unit/clip-helpers.ts";

const HIGH = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];
const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const smallUe = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 2 ** 31 - 2 }));
const smallSe = fc.integer({ min: -(2 ** 20), max: 2 ** 20 });

export interface GeneratedSps {
  nal: Uint8Array;
  unitsInTick: number;
  timeScale: number;
}

/** A valid SPS with VUI timing_info; every optional part is randomly present or not. */
export const spsArb: fc.Arbitrary<GeneratedSps> = fc
  .record({
    profile: fc.oneof(fc.constantFrom(66, 77, 88, ...HIGH), fc.integer({ min: 0, max: 255 })),
    constraints: fc.integer({ min: 0, max: 255 }),
    level: fc.integer({ min: 0, max: 255 }),
    id: smallUe,
    chroma: fc.integer({ min: 0, max: 3 }),
    bitDepths: fc.tuple(smallUe, smallUe),
    // per list: absent, or the delta_scale values a scaling list may read
    scaling: fc.option(
      fc.array(fc.option(fc.array(fc.integer({ min: -128, max: 127 }), { maxLength: 64, size: "max" })), {
        minLength: 12,
        maxLength: 12,
      }),
    ),
    log2MaxFrameNum: smallUe,
    poc: fc.oneof(
      fc.record({ type: fc.constant(0), lsb: smallUe }),
      fc.record({
        type: fc.constant(1),
        always: fc.integer({ min: 0, max: 1 }),
        offsets: fc.tuple(smallSe, smallSe),
        cycle: fc.array(smallSe, { maxLength: 6 }),
      }),
      fc.record({ type: fc.constant(2) }),
    ),
    refFrames: smallUe,
    gaps: fc.integer({ min: 0, max: 1 }),
    size: fc.tuple(smallUe, smallUe),
    frameMbsOnly: fc.boolean(),
    crop: fc.option(fc.tuple(smallUe, smallUe, smallUe, smallUe)),
    aspect: fc.option(fc.oneof(fc.integer({ min: 0, max: 254 }), fc.tuple(u32, u32))),
    overscan: fc.option(fc.integer({ min: 0, max: 1 })),
    signal: fc.option(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.option(u32))),
    chromaLoc: fc.option(fc.tuple(smallUe, smallUe)),
    timing: fc.oneof(
      fc.tuple(u32, u32),
      // a frame duration of whole ticks: 90000 · 2 · units / scale = T
      fc
        .tuple(
          fc.integer({ min: 1, max: 20000 }),
          fc.constantFrom(1, 2, 3, 1500, 3000, 3600, 6000, 90000, 180000),
        )
        .map(([units, t]) => [units, (180000 * units) / t] as [number, number]),
      fc.constantFrom<[number, number]>([1, 60], [1001, 60000], [1, 50], [1, 120], [1000, 60000]),
    ),
    tail: fc.array(fc.integer({ min: 0, max: 1 }), { maxLength: 40 }),
  })
  .map((f): GeneratedSps => {
    const w = new BitWriter();
    w.u(8, f.profile);
    w.u(8, f.constraints);
    w.u(8, f.level);
    w.ue(f.id);
    if (HIGH.includes(f.profile)) {
      w.ue(f.chroma);
      if (f.chroma === 3) w.u(1, 0);
      w.ue(f.bitDepths[0]);
      w.ue(f.bitDepths[1]);
      w.u(1, 0);
      w.u(1, f.scaling === null ? 0 : 1);
      if (f.scaling !== null) {
        const lists = f.chroma === 3 ? 12 : 8;
        for (let i = 0; i < lists; i++) {
          const deltas = f.scaling[i] ?? null;
          w.u(1, deltas === null ? 0 : 1);
          if (deltas === null) continue;
          // the reader's rule: a delta is read while the next scale is not 0
          const size = i < 6 ? 16 : 64;
          let last = 8;
          let next = 8;
          for (let j = 0; j < size; j++) {
            if (next !== 0) {
              const d = deltas[j] ?? 0;
              w.se(d);
              next = (((last + d) % 256) + 256) % 256;
            }
            if (next !== 0) last = next;
          }
        }
      }
    }
    w.ue(f.log2MaxFrameNum);
    w.ue(f.poc.type);
    if (f.poc.type === 0) w.ue(f.poc.lsb);
    else if (f.poc.type === 1) {
      w.u(1, f.poc.always);
      w.se(f.poc.offsets[0]);
      w.se(f.poc.offsets[1]);
      w.ue(f.poc.cycle.length);
      for (const c of f.poc.cycle) w.se(c);
    }
    w.ue(f.refFrames);
    w.u(1, f.gaps);
    w.ue(f.size[0]);
    w.ue(f.size[1]);
    w.u(1, f.frameMbsOnly ? 1 : 0);
    if (!f.frameMbsOnly) w.u(1, 1);
    w.u(1, 1); // direct_8x8_inference_flag
    w.u(1, f.crop === null ? 0 : 1);
    if (f.crop !== null) for (const c of f.crop) w.ue(c);
    w.u(1, 1); // vui_parameters_present_flag
    w.u(1, f.aspect === null ? 0 : 1);
    if (typeof f.aspect === "number") w.u(8, f.aspect);
    else if (f.aspect !== null) {
      w.u(8, 255);
      w.u(16, f.aspect[0] & 0xffff);
      w.u(16, f.aspect[1] & 0xffff);
    }
    w.u(1, f.overscan === null ? 0 : 1);
    if (f.overscan !== null) w.u(1, f.overscan);
    w.u(1, f.signal === null ? 0 : 1);
    if (f.signal !== null) {
      w.u(3, f.signal[0]);
      w.u(1, 0);
      w.u(1, f.signal[1] === null ? 0 : 1);
      if (f.signal[1] !== null) w.u(24, f.signal[1] % 2 ** 24);
    }
    w.u(1, f.chromaLoc === null ? 0 : 1);
    if (f.chromaLoc !== null) {
      w.ue(f.chromaLoc[0]);
      w.ue(f.chromaLoc[1]);
    }
    w.u(1, 1); // timing_info_present_flag
    const [unitsInTick, timeScale] = f.timing;
    w.u(32, unitsInTick);
    w.u(32, timeScale);
    for (const b of f.tail) w.u(1, b);
    const nal = Uint8Array.from([0x67, ...addEmulationPrevention(w.rbsp())]);
    return { nal, unitsInTick, timeScale };
  });
