// Frame rate of an H.264 stream from its sequence parameter set
// (docs/definitions.md#h264-annex-b-clips; H.264 clause 7.3.2.1.1 and Annex E.1.1): the parse reads
// just far enough to reach the VUI's timing_info, skipping every field before it. A frame lasts two
// clock ticks (E.2.1), so its duration in 90 kHz ticks is 90000 · 2 · num_units_in_tick /
// time_scale.
import { ClipError } from "../errors.ts";
import { CLOCK_RATE } from "./model.ts";

const NO_TIMING = "h264: the SPS carries no frame rate (VUI timing_info); give it with --fps";
const SHORT_SPS = "h264: the SPS ends before its timing_info";
const MAX_TICKS = 2 ** 32 - 1;

/** Profiles whose SPS carries chroma_format_idc, bit depths and the scaling matrix. */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** Drops the emulation-prevention byte of every `00 00 03` (H.264 clause 7.4.1): NAL payload → RBSP. */
export function unescapeRbsp(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  let n = 0;
  let zeros = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (zeros >= 2 && c === 3) {
      zeros = 0;
      continue;
    }
    zeros = c === 0 ? zeros + 1 : 0;
    out[n++] = c;
  }
  return out.subarray(0, n);
}

/** Reads an RBSP most significant bit first; reading past the end throws SHORT_SPS. */
class BitReader {
  private readonly b: Uint8Array;
  private pos = 0;

  constructor(b: Uint8Array) {
    this.b = b;
  }

  bit(): number {
    if (this.pos >= this.b.length * 8) throw new ClipError(SHORT_SPS);
    const v = (this.b[this.pos >>> 3]! >>> (7 - (this.pos & 7))) & 1;
    this.pos++;
    return v;
  }

  /** n ≤ 32 bits as an unsigned number. */
  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 2 + this.bit();
    return v;
  }

  /** Exp-Golomb ue(v) (H.264 clause 9.1), at most 31 leading zeros as a 32-bit value can hold. */
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) {
      zeros++;
      if (zeros > 31) throw new ClipError("h264: an Exp-Golomb code in the SPS is too long");
    }
    return 2 ** zeros - 1 + this.u(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -(k / 2);
  }

  /**
   * Skips one scaling_list() (H.264 clause 7.3.2.1.1.1): delta_scale is read while the next scale
   * is not 0.
   */
  scalingList(size: number): void {
    let last = 8;
    let next = 8;
    for (let j = 0; j < size; j++) {
      if (next !== 0) next = (((last + this.se()) % 256) + 256) % 256;
      if (next !== 0) last = next;
    }
  }
}

/** num_units_in_tick and time_scale of an SPS NAL unit (header byte included). */
export function spsTiming(sps: Uint8Array): { unitsInTick: number; timeScale: number } {
  if (sps.length === 0 || (sps[0]! & 0x1f) !== 7) throw new ClipError("h264: not an SPS NAL unit");
  const r = new BitReader(unescapeRbsp(sps.subarray(1)));
  const profile = r.u(8);
  r.u(8); // constraint flags, reserved bits
  r.u(8); // level_idc
  r.ue(); // seq_parameter_set_id
  if (HIGH_PROFILES.has(profile)) {
    const chroma = r.ue();
    if (chroma === 3) r.u(1); // separate_colour_plane_flag
    r.ue(); // bit_depth_luma_minus8
    r.ue(); // bit_depth_chroma_minus8
    r.u(1); // qpprime_y_zero_transform_bypass_flag
    if (r.u(1) === 1) {
      // seq_scaling_matrix_present_flag
      const lists = chroma === 3 ? 12 : 8;
      for (let i = 0; i < lists; i++) {
        if (r.u(1) === 1) r.scalingList(i < 6 ? 16 : 64);
      }
    }
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) {
    r.ue(); // log2_max_pic_order_cnt_lsb_minus4
  } else if (pocType === 1) {
    r.u(1); // delta_pic_order_always_zero_flag
    r.se(); // offset_for_non_ref_pic
    r.se(); // offset_for_top_to_bottom_field
    const n = r.ue(); // num_ref_frames_in_pic_order_cnt_cycle (each se reads ≥ 1 bit: bounded)
    for (let i = 0; i < n; i++) r.se();
  }
  r.ue(); // max_num_ref_frames
  r.u(1); // gaps_in_frame_num_value_allowed_flag
  r.ue(); // pic_width_in_mbs_minus1
  r.ue(); // pic_height_in_map_units_minus1
  if (r.u(1) === 0) r.u(1); // frame_mbs_only_flag; mb_adaptive_frame_field_flag
  r.u(1); // direct_8x8_inference_flag
  if (r.u(1) === 1) {
    // frame_cropping_flag: left, right, top, bottom offsets
    r.ue();
    r.ue();
    r.ue();
    r.ue();
  }
  if (r.u(1) === 0) throw new ClipError(NO_TIMING); // vui_parameters_present_flag
  if (r.u(1) === 1) {
    // aspect_ratio_info_present_flag
    if (r.u(8) === 255) {
      // Extended_SAR: sar_width, sar_height
      r.u(16);
      r.u(16);
    }
  }
  if (r.u(1) === 1) r.u(1); // overscan_info_present_flag; overscan_appropriate_flag
  if (r.u(1) === 1) {
    // video_signal_type_present_flag: video_format, video_full_range_flag
    r.u(3);
    r.u(1);
    if (r.u(1) === 1) r.u(24); // colour_description_present_flag
  }
  if (r.u(1) === 1) {
    // chroma_loc_info_present_flag
    r.ue();
    r.ue();
  }
  if (r.u(1) === 0) throw new ClipError(NO_TIMING); // timing_info_present_flag
  const unitsInTick = r.u(32);
  const timeScale = r.u(32);
  return { unitsInTick, timeScale };
}

/** Whole 90 kHz ticks per frame from timing_info: 60/1 → 3000 (30 fps), 60000/1001 → 3003. */
export function ticksOfTiming(unitsInTick: number, timeScale: number): number {
  if (unitsInTick === 0 || timeScale === 0) {
    throw new ClipError(
      `h264: SPS timing ${timeScale}/${unitsInTick} is not a frame rate; give it with --fps`,
    );
  }
  const num = CLOCK_RATE * 2 * unitsInTick; // < 2^53: exact
  const ticks = Math.floor(num / timeScale);
  if (num % timeScale !== 0 || ticks === 0 || ticks > MAX_TICKS) {
    throw new ClipError(
      `h264: SPS frame rate ${timeScale}/${2 * unitsInTick} is not a whole number of 90 kHz ticks; give it with --fps`,
    );
  }
  return ticks;
}

/** Frame duration in 90 kHz ticks that an SPS NAL unit (header byte included) declares. */
export function spsTicks(sps: Uint8Array): number {
  const { unitsInTick, timeScale } = spsTiming(sps);
  return ticksOfTiming(unitsInTick, timeScale);
}
