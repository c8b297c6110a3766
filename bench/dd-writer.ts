// Hand-built dependency descriptors for the tests
// (https://aomedia.org/av1-rtp-spec/#dependency-descriptor-rtp-header-extension): a bit writer and
// an L1T2 structure — template 0 the keyframe (no diffs), 1 a base-layer frame (diff 2), 2 a
// top-layer frame (diff 1) — with two decode targets, one chain and a render resolution; and our
// SRTP stage handing such packets to a viewer pipeline, descriptors first (where negotiated).
import { SrtpSession } from "werift";
import type { ViewerPipeline } from "../src/core/delay/viewer-pipeline.ts";
import { SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "../src/core/srtp/kdf.ts";
import { OwnSrtpStage } from "../src/workers/receive/receiver.ts";

const DD_KEY = Buffer.alloc(16, 3);
const DD_SALT = Buffer.alloc(12, 5);
const DD_PROFILE = SRTP_AEAD_AES_128_GCM as SrtpProfile;

/** werift's SRTP session with the keys ddStage reads with (encrypt packets for it). */
export function ddSender(): SrtpSession {
  const keys = {
    localMasterKey: DD_KEY,
    localMasterSalt: DD_SALT,
    remoteMasterKey: DD_KEY,
    remoteMasterSalt: DD_SALT,
  };
  return new SrtpSession({ keys, profile: DD_PROFILE });
}

/** Our SRTP stage (keys DD_KEY, DD_SALT) for payload type 96 into `pipeline`; `ddId` 0: not negotiated. */
export function ddStage(
  pipeline: ViewerPipeline,
  ddId: number,
  inPlace: boolean,
  onDescriptor: (seq: number, b: Uint8Array, off: number, len: number) => void,
): OwnSrtpStage {
  return new OwnSrtpStage({
    profile: DD_PROFILE,
    remoteMasterKey: DD_KEY,
    remoteMasterSalt: DD_SALT,
    inPlace,
    payloadTypes: [96],
    clockRate: 90000,
    absId: 0,
    ddId,
    onDescriptor,
    senderSsrc: 1,
    sendRtcp: () => {},
    onNack: () => {},
    next: {
      receive: (p) => pipeline.onPacket(p.seq, p.ts, p.marker, p.payload, p.arrivalNs, p.captureWallNs),
      close: () => {},
    },
  });
}

export class BitWriter {
  private readonly bits: number[] = [];

  put(value: number, n: number): this {
    for (let i = n - 1; i >= 0; i--) this.bits.push(Math.floor(value / 2 ** i) % 2);
    return this;
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(Math.ceil(this.bits.length / 8));
    this.bits.forEach((b, i) => {
      out[i >> 3]! |= b << (7 - (i & 7));
    });
    return out;
  }
}

/** The mandatory fields: start, end, template id, frame number. */
export function mandatory(
  w: BitWriter,
  start: boolean,
  end: boolean,
  template: number,
  frame: number,
): BitWriter {
  return w
    .put(start ? 1 : 0, 1)
    .put(end ? 1 : 0, 1)
    .put(template, 6)
    .put(frame, 16);
}

/** The L1T2 template dependency structure, template ids from `offset`. */
export function l1t2Structure(w: BitWriter, offset = 0): BitWriter {
  w.put(offset, 6).put(1, 5); // template_id_offset, dt_cnt_minus_one (2 decode targets)
  w.put(0, 2).put(1, 2).put(3, 2); // template_layers: T0, T0, T1 (next_layer_idc 0, 1, 3)
  w.put(0b1010_1010_1010, 12); // template_dtis: 2 bits × 2 targets × 3 templates
  w.put(0, 1); // template 0: no diffs
  w.put(1, 1).put(1, 4).put(0, 1); // template 1: diff 2
  w.put(1, 1).put(0, 4).put(0, 1); // template 2: diff 1
  w.put(1, 1).put(0, 1); // chain_cnt ns(3) = 1; decode_target_protected_by ns(1) takes no bits
  w.put(0, 4).put(2, 4).put(1, 4); // template_chain_fdiff per template
  return w.put(1, 1).put(319, 16).put(179, 16); // render resolution 320×180
}

/** A keyframe's first packet: mandatory fields, then the structure and no custom fields. */
export function keyframeDescriptor(frame: number, end: boolean, offset = 0): Uint8Array {
  const w = mandatory(new BitWriter(), true, end, offset, frame);
  w.put(1, 1).put(0, 4); // structure present; no active targets, custom dtis, fdiffs or chains
  return l1t2Structure(w, offset).bytes();
}

/** A delta frame's packet: the mandatory fields alone (3 bytes). */
export function deltaDescriptor(frame: number, template: number, start: boolean, end: boolean): Uint8Array {
  return mandatory(new BitWriter(), start, end, template, frame).bytes();
}

/** A packet with custom frame diffs (each ≤ 16, written with fdiff_size 1). */
export function customDescriptor(frame: number, template: number, fdiffs: number[]): Uint8Array {
  const w = mandatory(new BitWriter(), true, true, template, frame);
  w.put(0, 3).put(1, 1).put(0, 1); // custom fdiffs only
  for (const d of fdiffs) w.put(1, 2).put(d - 1, 4);
  return w.put(0, 2).bytes();
}
